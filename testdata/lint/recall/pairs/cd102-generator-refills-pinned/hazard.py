import torch


def device_batches(arrays, device):
    staging = torch.empty(arrays[0].shape).pin_memory()
    for arr in arrays:
        staging.copy_(torch.from_numpy(arr))  # want CD102
        yield staging.to(device, non_blocking=True)
