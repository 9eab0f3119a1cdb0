import torch
from torch import nn


class PadColumn(nn.Module):
    def forward(self, x):
        return torch.cat([x, x.new_zeros(x.size(0), 1)], dim=1)
