import torch


def project(x, weight):
    weight = weight.half()
    y = x.to(weight.dtype) @ weight
    return y.float().pow(2).sum(dim=-1)
