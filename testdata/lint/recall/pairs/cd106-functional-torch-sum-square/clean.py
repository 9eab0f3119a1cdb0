import torch


def sq_norm(x):
    return torch.sum(torch.square(x.to(torch.float32)), dim=-1)
