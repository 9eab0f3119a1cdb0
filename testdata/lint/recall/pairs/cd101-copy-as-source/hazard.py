import torch


def restore(flat, like):
    host = flat.to("cpu", non_blocking=True)
    out = torch.empty(like.shape, dtype=like.dtype)
    out.copy_(host.view(like.shape))  # want CD101
    return out
