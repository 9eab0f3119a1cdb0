import torch
from torch import nn


class TimeEncoding(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(1, dim)

    def steps(self, length: int, device: torch.device) -> torch.Tensor:
        return torch.linspace(0.0, 1.0, length, device=device).unsqueeze(-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = self.steps(x.size(1), x.device)
        return x + self.proj(t)
