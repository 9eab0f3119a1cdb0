import torch


def normalize(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    std = var.sqrt()
    std.clamp_(min=eps)  # want CD109
    return (x - x.mean(dim=-1, keepdim=True)) / std
