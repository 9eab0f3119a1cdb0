import torch
from torch import nn
from torch.cuda.amp import autocast, GradScaler  # want CD104

model = nn.Linear(10, 10).cuda()
scaler = torch.cuda.amp.GradScaler()  # want CD104
with torch.cuda.amp.autocast(dtype=torch.float16):  # want CD104
    out = model(torch.randn(4, 10, device="cuda"))


class Fn(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd  # want CD104
    def forward(ctx, x):
        return x

    @staticmethod
    @torch.cuda.amp.custom_bwd(cast_inputs=None)  # want CD104
    def backward(ctx, g):
        return g


from torch.cuda import amp


def step_with_module_alias(model, x):
    with amp.autocast():  # want CD104
        return model(x)
