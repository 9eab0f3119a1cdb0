import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.hidden = hidden
        self.rnn = nn.LSTM(dim, hidden, batch_first=True)

    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), self.hidden)  # want CD111
        c0 = torch.zeros_like(h0)
        return self.rnn(x, (h0, c0))[0]
