from typing import Optional

import torch
from torch import nn


class MaskedMean(nn.Module):
    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        if mask is not None:
            return (x * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        mask = torch.ones(x.shape[:2], dtype=x.dtype, device=x.device)
        return (x * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
