import functools

import torch

to_half = functools.partial(torch.Tensor.to, dtype=torch.float16)


def energy(feats):
    h = to_half(feats)
    return h.pow(2).sum()  # want CD106
