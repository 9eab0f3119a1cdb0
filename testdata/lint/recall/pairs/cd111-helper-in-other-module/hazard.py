import torch.nn as nn

from masks import lookahead_mask


class TinyDecoder(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)

    def forward(self, x):
        mask = lookahead_mask(x.size(1))  # want CD111
        out, _ = self.attn(x, x, x, attn_mask=mask)
        return out
