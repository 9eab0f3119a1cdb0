import torch
from torch.cuda.amp import autocast as ac  # want CD104


def infer(model, x):
    with ac(dtype=torch.float16):
        return model(x)
