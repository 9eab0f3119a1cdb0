import numpy as np
import torch
from torch import nn


def positional_encoding(v, sigma, m):
    j = torch.arange(m)  # want CD111
    coeffs = 2 * np.pi * sigma ** (j / m)
    vp = coeffs * torch.unsqueeze(v, -1)
    out = torch.cat((torch.cos(vp), torch.sin(vp)), dim=-1)
    return out.flatten(-2, -1)


class PositionalEncoding(nn.Module):
    def __init__(self, sigma, m):
        super().__init__()
        self.sigma = sigma
        self.m = m

    def forward(self, v):
        return positional_encoding(v, self.sigma, self.m)
