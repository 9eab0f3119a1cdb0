import torch
import torch.nn.functional as nnf


class Relu6ish(torch.nn.Module):
    def forward(self, x):
        y = nnf.relu(x)
        y[y > 6] = 6  # want CD109
        return y
