import torch


class Pad(torch.nn.Module):
    def forward(self, x):
        pad = x.new_zeros(x.size(0), 1, x.size(2))
        return torch.cat([pad, x], dim=1)
