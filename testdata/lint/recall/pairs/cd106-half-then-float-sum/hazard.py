import torch


def feature_energy(feats):
    low = feats.to(torch.float16)
    return low.pow(2).sum(dim=(1, 2, 3))  # want CD106
