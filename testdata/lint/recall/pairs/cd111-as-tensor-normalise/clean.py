import torch
from torch import nn


class Normalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean_values = mean
        self.std_values = std

    def forward(self, x):
        mean = torch.as_tensor(self.mean_values, device=x.device).view(1, -1, 1, 1)
        std = torch.as_tensor(self.std_values, device=x.device).view(1, -1, 1, 1)
        return (x - mean) / std
