import torch


def same_tokens(a, b):
    a = a.to("cpu", non_blocking=True)
    b = b.to("cpu", non_blocking=True)
    return bool((a == b).all())  # want CD101
