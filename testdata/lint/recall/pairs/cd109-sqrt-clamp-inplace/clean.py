import torch


def normalize(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    var.clamp_(min=eps * eps)
    std = var.sqrt()
    return (x - x.mean(dim=-1, keepdim=True)) / std
