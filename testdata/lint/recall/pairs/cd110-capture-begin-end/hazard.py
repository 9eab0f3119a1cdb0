import torch


def record(g, model, static_in):
    g.capture_begin()
    out = model(static_in)
    host = out.cpu()  # want CD110
    g.capture_end()
    return out, host
