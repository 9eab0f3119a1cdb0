import torch
from torch.utils.data import DataLoader


def stream_batches(dataset, batch_size, device="cuda"):
    loader = DataLoader(dataset, batch_size=batch_size, num_workers=4, persistent_workers=True)
    staging = None
    for batch in loader:
        if staging is None:
            staging = torch.empty_like(batch).pin_memory()
        staging.copy_(batch)  # want CD102
        yield staging.to(device, non_blocking=True)
