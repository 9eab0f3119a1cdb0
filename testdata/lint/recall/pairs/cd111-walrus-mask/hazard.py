import torch
from torch import nn


class Dropper(nn.Module):
    def forward(self, x):
        if (keep := torch.ones(x.shape[-1])).numel():  # want CD111
            x = x * keep
        return x
