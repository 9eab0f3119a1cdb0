import torch


def clip_and_log(t):
    print("norm", t.norm().item())
    t.clamp_(-1.0, 1.0)


def clip_inplace(t):
    t.clamp_(-1.0, 1.0)
