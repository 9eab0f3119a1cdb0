import torch
from torch import nn


def build(hidden: int, device: str = "cuda") -> nn.Module:
    model = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, 1)).to(device)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model, device_ids=[0, 1])
    return model
