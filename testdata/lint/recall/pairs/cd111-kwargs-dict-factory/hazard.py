import torch
from torch import nn


class TokenDrop(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        opts = {"dtype": x.dtype}
        keep = torch.rand(x.shape[0], x.shape[1], 1, **opts) > self.p  # want CD111
        return x * keep
