import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, dim, n):
        super().__init__()
        self.proj = nn.Linear(dim, n)

    def forward(self, x, invalid):
        probs = torch.softmax(self.proj(x), dim=-1)
        probs.masked_fill_(invalid, 0.0)  # want CD109
        return probs
