import torch
import torch.nn.functional as nnf


class Relu6ish(torch.nn.Module):
    def forward(self, x):
        y = nnf.relu(x)
        return y.clamp(max=6)
