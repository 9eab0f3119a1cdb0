import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.act = nn.Sigmoid()

    def forward(self, h, mask):
        out = self.act(self.proj(h))
        out.mul_(mask)  # want CD109
        return out
