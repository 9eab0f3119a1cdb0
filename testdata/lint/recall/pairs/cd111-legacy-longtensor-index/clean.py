import torch
from torch import nn


class Reorder(nn.Module):
    def __init__(self, order):
        super().__init__()
        self.order = list(order)
        self.proj = nn.Linear(len(order), len(order))

    def forward(self, x):
        idx = torch.tensor(self.order, dtype=torch.long, device=x.device)
        return self.proj(x.index_select(1, idx))
