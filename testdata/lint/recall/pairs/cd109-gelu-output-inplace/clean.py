import torch
import torch.nn.functional as F
from torch import nn


class ScaledMLP(nn.Module):
    def __init__(self, dim, hidden, scale=0.5):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)
        self.scale = scale

    def forward(self, x):
        h = F.gelu(self.up(x))
        h.mul_(self.scale)
        return self.down(h)
