import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.rnn = nn.GRU(d, h)
        self.init_state = lambda b: torch.zeros(1, b, h)

    def forward(self, x):
        out, _ = self.rnn(x, self.init_state(x.size(1)))  # want CD111
        return out
