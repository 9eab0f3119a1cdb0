import math

import torch
from torch import nn


def causal_attention(q, k, v):
    L, S = q.shape[-2], k.shape[-2]
    bias = torch.zeros(L, S, dtype=q.dtype, device=q.device)
    keep = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)  # want CD111
    bias.masked_fill_(keep.logical_not(), float("-inf"))
    w = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + bias
    return w.softmax(-1) @ v


class SelfAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return causal_attention(q, k, v)
