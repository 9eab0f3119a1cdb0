from typing import cast

import torch


def partition(logits: torch.Tensor) -> torch.Tensor:
    h = cast(torch.Tensor, logits.half())
    return h.exp().sum(dim=-1)  # want CD106
