import torch as th
from torch import nn


class Noisy(nn.Module):
    def __init__(self, sigma):
        super().__init__()
        self.sigma = sigma

    def forward(self, x):
        noise = th.randn_like(x) * self.sigma
        return x + noise
