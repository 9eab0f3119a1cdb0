import torch
from torch import nn


class Jitter(nn.Module):
    def __init__(self, std=0.02):
        super().__init__()
        self.std = std

    def forward(self, x):
        eps = torch.normal(0.0, self.std, size=x.shape)  # want CD111
        return x * (1 + eps)
