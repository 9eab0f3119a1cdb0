import torch
from torch.amp import custom_fwd, custom_bwd


class Scale(torch.autograd.Function):
    @staticmethod
    @custom_fwd(device_type="cuda")
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @custom_bwd(device_type="cuda")
    def backward(ctx, g):
        return g * 2
