import torch
from torch import nn


class PositionalAdd(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.pos = nn.Embedding(n, d)

    def forward(self, x):
        idx = torch.arange(x.shape[1], device=x.device)
        return x + self.pos(idx)
