import torch


def pooled(hidden: torch.Tensor, fp16: bool) -> torch.Tensor:
    if not fp16:
        return hidden.sum(dim=1)
    hidden = hidden.half()
    return hidden.sum(dim=1)  # want CD106
