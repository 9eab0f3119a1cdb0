import torch

try:
    from torch.amp import GradScaler
except ImportError:
    from torch.cuda.amp import GradScaler


def make_scaler(enabled):
    return GradScaler(enabled=enabled)
