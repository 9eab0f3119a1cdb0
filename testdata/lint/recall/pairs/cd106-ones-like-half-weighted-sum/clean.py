import torch


def weighted_total(x: torch.Tensor) -> torch.Tensor:
    w = torch.ones_like(x, dtype=torch.half)
    return (w * x.half()).sum(dim=1, dtype=torch.float32)
