import torch
from torch import nn


class Attend(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, q, k):
        scores = q @ k.transpose(-2, -1)
        t = scores.shape[-1]
        match self.kind:
            case "causal":
                mask = torch.ones(t, t, dtype=torch.bool, device=scores.device).triu(1)
                scores = scores.masked_fill(mask, float("-inf"))
            case _:
                pass
        return scores.softmax(-1)
