import torch
from torch import nn


class Causal(nn.Module):
    def __init__(self, t):
        super().__init__()
        self.register_buffer("mask", torch.ones(t, t).triu(1).bool())

    def forward(self, scores):
        bias = torch.zeros_like(scores)
        return scores.masked_fill(self.mask, float("-inf")) + bias
