import torch


def device_batches(arrays, device):
    for arr in arrays:
        staging = torch.from_numpy(arr).pin_memory()
        yield staging.to(device, non_blocking=True)
