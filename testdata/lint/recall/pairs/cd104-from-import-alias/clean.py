import torch
from torch.amp import autocast as ac


def infer(model, x):
    with ac("cuda", dtype=torch.float16):
        return model(x)
