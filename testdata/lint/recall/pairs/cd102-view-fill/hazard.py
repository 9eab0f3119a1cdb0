import torch


def send(n):
    a = torch.ones(n, pin_memory=True)
    b = torch.zeros(n, device="cuda")
    b.copy_(a, non_blocking=True)
    a[-1].fill_(-1)  # want CD102
    return b
