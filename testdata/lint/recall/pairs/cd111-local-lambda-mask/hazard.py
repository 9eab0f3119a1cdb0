import torch
from torch import nn


class CausalAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        causal = lambda n: torch.triu(torch.ones(n, n), diagonal=1).bool()
        att = q @ k.transpose(-2, -1)
        att = att.masked_fill(causal(x.size(1)), float("-inf"))  # want CD111
        return att.softmax(-1) @ v
