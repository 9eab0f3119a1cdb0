import torch
from torch import nn


class Cell(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x):
        self.h = torch.tanh(self.lin(x))
        self.h[:, 0] = 0  # want CD109
        return self.h
