import torch
from torch import nn


class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training:
            return x
        keep = torch.rand(x.shape[0], 1, 1) >= self.p  # want CD111
        return x * keep / (1 - self.p)
