import torch
from torch import nn


class ConvLSTMCell(nn.Module):
    def __init__(self, cin, hidden, k=3):
        super().__init__()
        self.hidden = hidden
        self.conv = nn.Conv2d(cin + hidden, 4 * hidden, k, padding=k // 2)

    def init_hidden(self, batch, size):
        h, w = size
        return (torch.zeros(batch, self.hidden, h, w), torch.zeros(batch, self.hidden, h, w))

    def forward(self, x, state):
        h, c = state
        i, f, o, g = self.conv(torch.cat([x, h], dim=1)).chunk(4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c


class ConvLSTM(nn.Module):
    def __init__(self, cin, hidden):
        super().__init__()
        self.cell = ConvLSTMCell(cin, hidden)

    def forward(self, seq):
        b, t, _, hgt, wid = seq.shape
        state = self.cell.init_hidden(b, (hgt, wid))  # want CD111
        for step in range(t):
            state = self.cell(seq[:, step], state)
        return state[0]
