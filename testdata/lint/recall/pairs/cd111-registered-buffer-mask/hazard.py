import torch
from torch import nn


class Causal(nn.Module):
    def __init__(self, t):
        super().__init__()
        self.t = t

    def forward(self, scores):
        mask = torch.ones(self.t, self.t).triu(1).bool()  # want CD111
        bias = torch.zeros_like(scores)
        return scores.masked_fill(mask, float("-inf")) + bias
