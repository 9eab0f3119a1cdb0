import torch

DEVICE_MAP = {"encoder": "cuda:0", "decoder": "cuda:1"}  # want CD113


def place(model):
    for name, dev in DEVICE_MAP.items():
        getattr(model, name).to(dev)
