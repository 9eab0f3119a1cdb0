import torch
from torch import nn


class Scale(nn.Module):
    def forward(self, x):
        g = torch.linspace(0.5, 1.5, x.shape[-1]).to(x.dtype)  # want CD111
        return x * g
