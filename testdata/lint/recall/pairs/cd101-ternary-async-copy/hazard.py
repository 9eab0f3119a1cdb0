import torch


def to_numpy(t, overlap):
    host = t.to("cpu", non_blocking=True) if overlap else t.cpu()
    return host.numpy()  # want CD101
