import torch
from torch import nn


class Scale(nn.Module):
    def forward(self, x):
        steps = torch.arange(x.size(-1)).type(x.type())
        return x * steps
