import torch
from torch import nn


class Dropper(nn.Module):
    def forward(self, x):
        if (keep := torch.ones_like(x[0, :])).numel():
            x = x * keep
        return x
