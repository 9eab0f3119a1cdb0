import torch


class Masked(torch.nn.Module):
    def forward(self, x):
        mask = torch.ones_like(x[..., 0])
        return x * mask.unsqueeze(-1)
