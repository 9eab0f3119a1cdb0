import torch
from torch import nn


class WeightedHead(nn.Module):
    def __init__(self, dim, weights):
        super().__init__()
        self.proj = nn.Linear(dim, len(weights))
        self.weights = weights

    def forward(self, x):
        w = torch.as_tensor(self.weights, dtype=x.dtype, device=x.device)
        return self.proj(x) * w  
