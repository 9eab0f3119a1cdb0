import os

import torch


def setup():
    device = torch.device("cuda:1")  # want CD113
    torch.cuda.set_device(device)
    return device
