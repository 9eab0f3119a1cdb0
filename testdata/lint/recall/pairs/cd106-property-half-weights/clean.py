import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.proj = nn.Linear(d, n)

    @property
    def w16(self):
        return self.proj.weight.detach().float()

    def weight_norm(self):
        return self.w16.norm()
