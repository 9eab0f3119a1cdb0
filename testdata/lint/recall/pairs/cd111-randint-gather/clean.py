import torch
from torch import nn


class RandomPatches(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        b, n, d = x.shape
        idx = torch.randint(0, n, (b, self.k, 1), device=x.device).expand(-1, -1, d)
        return torch.gather(x, 1, idx)
