import torch
from torch import nn


class Shift(nn.Module):
    def __init__(self, pad_id):
        super().__init__()
        self.pad_id = pad_id

    def forward(self, ids, keep):
        pad = torch.full_like(ids, self.pad_id)
        return torch.where(keep, ids, pad)
