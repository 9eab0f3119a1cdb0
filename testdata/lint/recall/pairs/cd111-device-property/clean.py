import torch
from torch import nn


class Embedder(nn.Module):
    def __init__(self, vocab, dim, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)

    @property
    def device(self):
        return self.tok.weight.device

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=self.device)
        return self.tok(ids) + self.pos(positions)
