import torch
from torch import nn


class TimeEncoding(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(1, dim)

    def steps(self, length: int) -> torch.Tensor:
        return torch.linspace(0.0, 1.0, length).unsqueeze(-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = self.steps(x.size(1))  # want CD111
        return x + self.proj(t)
