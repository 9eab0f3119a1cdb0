import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, vocab, tags, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.LSTM(dim, dim, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * dim, tags)

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return self.head(h)

    def _best_paths(self, tokens):
        return self(tokens).argmax(-1).cpu()

    @torch.no_grad()
    def tag(self, tokens, names):
        paths = self._best_paths(tokens)
        return [[names[i] for i in row] for row in paths.tolist()]
