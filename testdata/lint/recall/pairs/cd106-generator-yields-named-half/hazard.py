import torch


def half_weights(model):
    for name, p in model.named_parameters():
        yield name, p.detach().half()


def weight_norms(model):
    out = {}
    for name, w in half_weights(model):
        out[name] = w.norm()  # want CD106
    return out
