import torch.nn.functional as F
from torch import nn


class PaddedAttention(nn.Module):
    def forward(self, scores, pad_mask, values):
        attn = F.softmax(scores, dim=-1)
        attn = attn.masked_fill(pad_mask, 0.0)
        return attn @ values
