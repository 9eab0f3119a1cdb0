import math

import torch
from torch import nn


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim, theta=10000):
        super().__init__()
        self.dim = dim
        self.theta = theta

    def forward(self, t):
        half_dim = self.dim // 2
        scale = math.log(self.theta) / (half_dim - 1)
        freqs = torch.exp(torch.arange(half_dim) * -scale)  # want CD111
        emb = t[:, None] * freqs[None, :]
        return torch.cat((emb.sin(), emb.cos()), dim=-1)
