import torch


def feature_energy(features, dtype=torch.bfloat16):
    x = features.to(dtype)
    return x.pow(2).sum(dim=-1)
