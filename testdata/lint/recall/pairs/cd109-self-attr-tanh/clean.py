import torch
from torch import nn


class Cell(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x):
        h = torch.tanh(self.lin(x))
        self.h = torch.cat([torch.zeros_like(h[:, :1]), h[:, 1:]], dim=1)
        return self.h
