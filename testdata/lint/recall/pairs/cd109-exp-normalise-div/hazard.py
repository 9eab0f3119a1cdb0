import torch


def my_softmax(x):
    out = x.exp()
    out /= out.sum(-1, keepdim=True)  # want CD109
    return out


def loss_fn(x, y):
    return -(my_softmax(x) * y).sum()
