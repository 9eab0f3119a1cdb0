import torch


def _load(checkpoint_path):
    checkpoint = torch.load(checkpoint_path, weights_only=True)  # want CD112
    return checkpoint["model"]
