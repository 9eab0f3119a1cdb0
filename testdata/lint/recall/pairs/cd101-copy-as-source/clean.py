import torch


def restore(flat, like):
    host = flat.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    out = torch.empty(like.shape, dtype=like.dtype)
    out.copy_(host.view(like.shape))
    return out
