import torch

N = torch.cuda.device_count()
DEVICE_MAP = {"encoder": "cuda:0", "decoder": f"cuda:{min(1, N - 1)}"}


def place(model):
    for name, dev in DEVICE_MAP.items():
        getattr(model, name).to(dev)
