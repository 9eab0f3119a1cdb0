import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.lstm = nn.LSTM(d, h, batch_first=True)

    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), self.h)  # want CD111
        c0 = torch.zeros(1, x.size(0), self.h, device=x.device)
        out, _ = self.lstm(x, (h0, c0))
        return out
