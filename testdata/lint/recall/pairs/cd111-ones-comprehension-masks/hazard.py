import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence


class MaskedPool(nn.Module):
    def forward(self, x, lengths):
        masks = [torch.ones(int(n)) for n in lengths]  # want CD111
        mask = pad_sequence(masks, batch_first=True)
        return (x * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
