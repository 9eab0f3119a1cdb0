import torch
from torch import nn


class RandomPatches(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        b, n, d = x.shape
        idx = torch.randint(0, n, (b, self.k, 1)).expand(-1, -1, d)  # want CD111
        return torch.gather(x, 1, idx)
