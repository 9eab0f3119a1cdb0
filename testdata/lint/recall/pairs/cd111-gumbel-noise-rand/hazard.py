import torch
from torch import nn


class GumbelQuantizer(nn.Module):
    def __init__(self, dim, codes, tau=1.0):
        super().__init__()
        self.proj = nn.Linear(dim, codes)
        self.codebook = nn.Embedding(codes, dim)
        self.tau = tau

    def forward(self, h):
        logits = self.proj(h)
        u = torch.rand(logits.shape)  # want CD111
        gumbel = -torch.log(-torch.log(u + 1e-9) + 1e-9)
        soft = ((logits + gumbel) / self.tau).softmax(dim=-1)
        return soft @ self.codebook.weight
