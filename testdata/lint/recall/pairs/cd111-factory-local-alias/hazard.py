import torch
from torch import nn


class PadLeft(nn.Module):
    def forward(self, x):
        make = torch.zeros
        pad = make(x.size(0), 4)  # want CD111
        return torch.cat([pad, x], dim=1)
