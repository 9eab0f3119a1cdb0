import torch
from torch import sigmoid as gate_fn


class GatedUnit(torch.nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(dim, 2 * dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        value, gate = self.proj(x).chunk(2, dim=-1)
        g = gate_fn(gate)
        g = g * value
        return g
