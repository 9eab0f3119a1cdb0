import torch
from torch import nn


def build(hidden: int, device: str = "cuda:1") -> nn.Module:  # want CD113
    model = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, 1))
    return model.to(device)
