from torch import load


def pretrained(path):
    return load(path, map_location="cpu")
