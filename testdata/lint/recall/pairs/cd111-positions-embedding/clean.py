import torch
from torch import nn


class Embed(nn.Module):
    def __init__(self, vocab, n_pos, d):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(n_pos, d)

    def forward(self, ids):
        positions = torch.arange(ids.size(1), device=ids.device)
        return self.tok(ids) + self.pos(positions)
