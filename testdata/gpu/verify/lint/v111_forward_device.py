import torch
from torch import nn


class PosAdd(nn.Module):
    def forward(self, x):
        pos = torch.arange(x.shape[-1])
        return x + pos


print(PosAdd().cuda()(torch.randn(2, 8, device="cuda")))
