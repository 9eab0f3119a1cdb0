import torch


def sq_norm(x):
    return torch.sum(torch.square(x.to(torch.float16)), dim=-1)  # want CD106
