import torch


def place(critic):
    dev = torch.device("cuda:1" if torch.cuda.device_count() > 1 else "cuda:0")
    return critic.to(dev)
