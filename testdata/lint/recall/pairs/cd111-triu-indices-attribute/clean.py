import torch
from torch import nn


def pair_table(n):
    s1, s2 = torch.triu_indices(n, n).unbind(0)
    idx = torch.arange(s1.shape[0])
    table = torch.zeros(n, n, dtype=torch.long)
    table[s1, s2] = idx
    table[s2, s1] = idx
    return table


class PairFeatures(nn.Module):
    def __init__(self, num_species, dim):
        super().__init__()
        self.register_buffer("pairs", pair_table(num_species))
        self.emb = nn.Embedding(num_species * (num_species + 1) // 2, dim)

    def forward(self, species_i, species_j):
        return self.emb(self.pairs[species_i, species_j])
