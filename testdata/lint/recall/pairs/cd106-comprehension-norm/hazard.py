import torch


def layer_norms(params):
    return [p.detach().half().norm() for p in params]  # want CD106
