import torch
from torch import nn


class Shift(nn.Module):
    def __init__(self, pad_id):
        super().__init__()
        self.pad_id = pad_id

    def forward(self, ids, keep):
        pad = torch.full(ids.shape, self.pad_id)  # want CD111
        return torch.where(keep, ids, pad)
