import torch


def parameter_norms(model):
    out = {}
    for name, p in model.named_parameters():
        w = p.data.half()
        out[name] = w.norm().item()  # want CD106
    return out
