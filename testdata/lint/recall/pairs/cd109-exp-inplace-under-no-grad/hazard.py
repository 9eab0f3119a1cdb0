import torch


class Softmaxish(torch.nn.Module):
    def forward(self, x):
        e = x.exp()
        e /= e.sum(-1, keepdim=True)  # want CD109
        return e
