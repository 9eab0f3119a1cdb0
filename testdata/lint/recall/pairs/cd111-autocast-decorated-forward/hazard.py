import torch
from torch import nn


class PosAdd(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(n, d))

    @torch.autocast("cuda")
    def forward(self, x):
        idx = torch.arange(x.shape[1])  # want CD111
        return x + self.pos[: x.shape[1]] * idx[:, None]
