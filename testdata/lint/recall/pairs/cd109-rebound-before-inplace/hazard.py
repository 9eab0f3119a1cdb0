import torch
import torch.nn.functional as F
from torch import nn


class GatedUnit(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 2 * dim)

    def forward(self, x, keep):
        a, b = self.fc(x).chunk(2, dim=-1)
        gate = torch.sigmoid(b)
        g = gate
        g.mul_(keep)  # want CD109
        return a * g
