import torch
from torch import nn


class Jitter(nn.Module):
    def __init__(self, std=0.02):
        super().__init__()
        self.std = std

    def forward(self, x):
        eps = torch.randn_like(x) * self.std
        return x * (1 + eps)
