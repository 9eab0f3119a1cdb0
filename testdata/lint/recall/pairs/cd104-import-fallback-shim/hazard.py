import torch
from torch.cuda.amp import GradScaler  # want CD104


def make_scaler(enabled):
    return GradScaler(enabled=enabled)
