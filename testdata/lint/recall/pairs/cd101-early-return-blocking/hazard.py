import torch


def to_numpy(t, fast=False):
    if fast:
        out = t.cpu()
        return out.numpy()
    out = t.to("cpu", non_blocking=True)
    return out.numpy()  # want CD101
