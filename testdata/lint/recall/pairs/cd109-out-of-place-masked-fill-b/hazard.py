import torch.nn.functional as F
from torch import nn


class PaddedAttention(nn.Module):
    def forward(self, scores, pad_mask, values):
        attn = F.softmax(scores, dim=-1)
        attn.masked_fill_(pad_mask, 0.0)  # want CD109
        return attn @ values
