import torch
from torch import nn


def causal_attention(q, k, v):
    scores = q @ k.transpose(-2, -1)
    t = scores.shape[-1]
    mask = torch.triu(torch.ones(t, t), diagonal=1).bool()  # want CD111
    scores = scores.masked_fill(mask, float("-inf"))
    return scores.softmax(-1) @ v


class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return causal_attention(q, k, v)
