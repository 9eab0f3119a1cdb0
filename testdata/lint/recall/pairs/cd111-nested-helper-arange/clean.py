import torch
from torch import nn


class Ramp(nn.Module):
    def forward(self, x):
        def ramp(n):
            return torch.arange(n, dtype=x.dtype, device=x.device) / n

        return x + ramp(x.size(-1))
