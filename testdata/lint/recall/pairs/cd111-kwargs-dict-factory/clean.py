import torch
from torch import nn


class TokenDrop(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        opts = {"dtype": x.dtype, "device": x.device}
        keep = torch.rand(x.shape[0], x.shape[1], 1, **opts) > self.p
        return x * keep
