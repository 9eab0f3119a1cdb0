import torch
import torch.nn.functional as F
from torch import nn


class BosReweight(nn.Module):
    def __init__(self, bos_scale: float = 0.5) -> None:
        super().__init__()
        self.bos_scale = bos_scale

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        probs = F.softmax(logits, dim=-1)
        probs[:, 0] *= self.bos_scale  # want CD109
        return probs / probs.sum(dim=-1, keepdim=True)
