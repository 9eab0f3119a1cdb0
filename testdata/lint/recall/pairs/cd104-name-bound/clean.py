import functools

import torch

autocast = functools.partial(torch.autocast, "cuda")


def predict(net, vol):
    with autocast():
        return net(vol)
