import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)

    @staticmethod
    def causal_mask(n):
        return torch.triu(torch.ones(n, n), diagonal=1).bool()

    def forward(self, x):
        mask = self.causal_mask(x.shape[1])  # want CD111
        return self.attn(x, x, x, attn_mask=mask)[0]
