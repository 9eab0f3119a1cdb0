import numpy as np
import torch
from torch import nn


class GaussianEncoding(nn.Module):
    def __init__(self, sigma, input_size, encoded_size):
        super().__init__()
        self.b = torch.randn(encoded_size, input_size) * sigma  # want CD111

    def forward(self, v):
        vp = 2 * np.pi * v @ self.b.T
        return torch.cat((torch.cos(vp), torch.sin(vp)), dim=-1)
