import torch
from torch import nn


class Dropper(nn.Module):
    def forward(self, x):
        mask = torch.ones(x.shape[0], x.shape[1], device=x.device)
        return x * mask
