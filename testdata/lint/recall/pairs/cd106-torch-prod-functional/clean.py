import torch


def volume(extents):
    e = extents.to(dtype=torch.float32)
    return torch.prod(e, dim=1)
