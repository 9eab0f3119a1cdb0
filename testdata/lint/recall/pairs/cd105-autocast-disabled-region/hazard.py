import torch
from torch import nn


class MaskHead(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, 1)
        self.crit = nn.BCELoss()

    def forward(self, feats, target):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            score = self.proj(feats).sigmoid()
            return self.crit(score.squeeze(-1), target)  # want CD105
