import torch


def channel_norm(x, weight, bias, eps=1e-6):
    x = x.half()
    u = x.mean(1, keepdim=True)
    s = (x - u).pow(2).mean(1, keepdim=True)  # want CD106
    x = (x - u) / torch.sqrt(s + eps)
    return weight[:, None, None] * x + bias[:, None, None]
