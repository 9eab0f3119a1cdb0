import torch


def weight_norms(x, scale):
    w = scale.half()
    xs = x.type_as(w)
    return xs.norm(dim=1)  # want CD106
