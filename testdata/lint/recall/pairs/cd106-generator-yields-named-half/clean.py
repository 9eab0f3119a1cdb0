import torch


def half_weights(model):
    for name, p in model.named_parameters():
        yield name, p.detach().float()


def weight_norms(model):
    out = {}
    for name, w in half_weights(model):
        out[name] = w.norm()
    return out
