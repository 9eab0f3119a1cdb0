import torch


def ship(ids, device):
    host = torch.tensor(ids).pin_memory()
    on_gpu = host.to(device=device, non_blocking=True)
    host[0] = -1  # want CD102
    return on_gpu
