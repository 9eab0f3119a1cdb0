import torch
import torch.nn.functional as F
from torch import nn


class WeightedHead(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.fc = nn.Linear(dim, classes)

    def forward(self, x, y):
        logits = self.fc(x)
        weights = torch.tensor([1.0, 2.0, 0.5], device=logits.device)
        return F.cross_entropy(logits, y, weight=weights)
