import torch


def _load(checkpoint_path):
    checkpoint = torch.load(checkpoint_path, weights_only=True, map_location="cpu")
    return checkpoint["model"]
