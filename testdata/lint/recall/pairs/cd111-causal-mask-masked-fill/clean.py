import torch
from torch import nn


class CausalScores(nn.Module):
    def forward(self, q, k):
        t = q.size(1)
        scores = q @ k.transpose(1, 2)
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool, device=q.device), 1)
        return scores.masked_fill(causal, float("-inf"))
