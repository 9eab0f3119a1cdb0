import torch


def feature_energy(feats: torch.Tensor) -> torch.Tensor:
    h = feats.half()
    scaled = h * 4.0
    return scaled.pow(2).sum(dim=-1)  # want CD106
