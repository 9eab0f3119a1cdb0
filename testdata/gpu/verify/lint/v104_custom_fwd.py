import warnings
import torch
warnings.simplefilter("always")


class Double(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, g):
        return g * 2


print(Double.apply(torch.ones(2, device="cuda", requires_grad=True)))
