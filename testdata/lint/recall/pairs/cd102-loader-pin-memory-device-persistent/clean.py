import torch
from torch.utils.data import DataLoader


def stream_batches(dataset, batch_size, device="cuda"):
    loader = DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=4,
        persistent_workers=True,
        pin_memory=True,
        pin_memory_device="cuda",
    )
    for batch in loader:
        yield batch.to(device, non_blocking=True)
