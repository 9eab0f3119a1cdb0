import torch


def layer_norms(params):
    return [p.detach().float().norm() for p in params]
