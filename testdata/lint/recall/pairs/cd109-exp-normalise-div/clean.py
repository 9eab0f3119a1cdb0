import torch


def my_softmax(x):
    out = x.exp()
    out = out / out.sum(-1, keepdim=True)
    return out


def loss_fn(x, y):
    return -(my_softmax(x) * y).sum()
