import torch


def grad_norm(g):
    g = g.to(dtype=torch.half)
    return torch.norm(g.float())
