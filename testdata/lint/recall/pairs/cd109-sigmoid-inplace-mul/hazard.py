import torch


class Gate(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(dim, dim))

    def forward(self, x):
        g = torch.sigmoid(x @ self.w)
        g.mul_(2.0)  # want CD109
        return g
