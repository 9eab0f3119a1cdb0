import math

import torch
import torch.nn as nn


def sinusoid_table(n, dim, device=None):
    pos = torch.arange(n, device=device).unsqueeze(1).float()
    freq = torch.exp(torch.arange(0, dim, 2, device=device).float() * (-math.log(10000.0) / dim))
    return torch.cat([torch.sin(pos * freq), torch.cos(pos * freq)], dim=-1)


class PositionalEncoding(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x + sinusoid_table(x.size(1), self.dim, device=x.device)
