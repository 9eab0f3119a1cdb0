import torch
from torch.cuda.amp import custom_fwd, custom_bwd  # want CD104


class Scale(torch.autograd.Function):
    @staticmethod
    @custom_fwd
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @custom_bwd
    def backward(ctx, g):
        return g * 2
