import torch


def feature_energy(feats: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    halves = {k: v.float() for k, v in feats.items()}
    return {k: v.pow(2).sum() for k, v in halves.items()}
