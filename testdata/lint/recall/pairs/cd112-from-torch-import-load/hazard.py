from torch import load


def pretrained(path):
    return load(path)  # want CD112
