import torch


def same_tokens(a, b):
    a = a.to("cpu", non_blocking=True)
    b = b.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    return bool((a == b).all())
