import torch


def feature_energy(feats):
    low = feats.to(torch.float16)
    return low.float().pow(2).sum(dim=(1, 2, 3))
