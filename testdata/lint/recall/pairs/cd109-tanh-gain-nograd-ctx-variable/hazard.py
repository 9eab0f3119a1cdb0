import torch
from torch import nn


class GatedProjection(nn.Module):
    def __init__(self, dim: int, gain: float) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.gain = gain

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.proj(x))
        h.mul_(self.gain)  # want CD109
        return h
