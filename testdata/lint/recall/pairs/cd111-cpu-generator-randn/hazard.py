import torch
from torch import nn


class SeededNoise(nn.Module):
    def __init__(self, seed, sigma):
        super().__init__()
        self.seed = seed
        self.sigma = sigma

    def forward(self, x):
        g = torch.Generator()
        g.manual_seed(self.seed)
        noise = torch.randn(x.shape, generator=g)  # want CD111
        return x + self.sigma * noise
