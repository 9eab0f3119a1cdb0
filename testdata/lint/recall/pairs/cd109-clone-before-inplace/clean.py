import torch
from torch import nn


class SoftMask(nn.Module):
    def __init__(self, eps=1e-4):
        super().__init__()
        self.eps = eps

    def forward(self, logits):
        m = torch.sigmoid(logits).clone()
        m.clamp_(self.eps, 1 - self.eps)
        return m
