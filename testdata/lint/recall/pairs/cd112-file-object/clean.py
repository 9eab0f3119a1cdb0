import torch


def read_checkpoint(path):
    with open(path, "rb") as fh:
        return torch.load(fh, map_location="cpu")
