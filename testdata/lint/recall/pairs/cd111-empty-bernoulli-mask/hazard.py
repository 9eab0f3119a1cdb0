import torch
from torch import nn


class WordDropout(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, x):
        keep = torch.empty(x.shape[:2]).bernoulli_(1 - self.p)  # want CD111
        return x * keep.unsqueeze(-1)
