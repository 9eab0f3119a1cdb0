import functools

import torch
from torch import nn

zeros = functools.partial(torch.zeros, dtype=torch.float32)


class PadColumn(nn.Module):
    def forward(self, x):
        pad = zeros(x.shape[0], 1, device=x.device)
        return torch.cat([x, pad], dim=1)
