import torch


def parameter_norms(model):
    out = {}
    for name, p in model.named_parameters():
        w = p.data.float()
        out[name] = w.norm().item()
    return out
