import torch as th
from torch import nn


class Noisy(nn.Module):
    def __init__(self, sigma):
        super().__init__()
        self.sigma = sigma

    def forward(self, x):
        noise = th.randn(x.shape) * self.sigma  # want CD111
        return x + noise
