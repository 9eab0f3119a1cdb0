import torch


def spread(values, device):
    a = torch.tensor(values, dtype=torch.half, device=device)
    m = a.float().mean()
    v = a.float().var()
    return m, v
