import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.rnn = nn.GRU(d, h)
        self.init_state = lambda b, dev: torch.zeros(1, b, h, device=dev)

    def forward(self, x):
        out, _ = self.rnn(x, self.init_state(x.size(1), x.device))
        return out
