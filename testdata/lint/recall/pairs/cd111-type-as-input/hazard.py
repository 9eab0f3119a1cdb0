import torch
from torch import nn


class Ramp(nn.Module):
    def forward(self, x):
        r = torch.arange(x.shape[-1]).float()  # want CD111
        return x + r
