import torch
from torch import nn


class ShiftRight(nn.Module):
    def __init__(self, bos_id):
        super().__init__()
        self.bos_id = bos_id

    def forward(self, input_ids):
        start = torch.full((input_ids.size(0), 1), self.bos_id, dtype=torch.long)  # want CD111
        return torch.cat([start, input_ids[:, :-1]], dim=1)
