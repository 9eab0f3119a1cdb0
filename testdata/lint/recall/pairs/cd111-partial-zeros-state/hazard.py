import functools

import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.cell = nn.GRUCell(d, d)
        self.zeros = functools.partial(torch.zeros, dtype=torch.float32)

    def forward(self, xs):
        h = self.zeros(xs.size(1), self.cell.hidden_size)  # want CD111
        for x in xs:
            h = self.cell(x, h)
        return h
