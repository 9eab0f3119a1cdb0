import torch


def init():
    torch.cuda.set_device(1)  # want CD113
    return torch.cuda.current_device()
