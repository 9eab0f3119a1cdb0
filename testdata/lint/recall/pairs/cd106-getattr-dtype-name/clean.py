import torch


def pooled_norm(x):
    dtype = getattr(torch, "float32")
    return x.to(dtype).norm(dim=0)
