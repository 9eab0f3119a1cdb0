import torch


def sum_gradients(grads, n):
    acc = torch.zeros(n, device="cuda", dtype=torch.half)
    for g in grads:
        acc += g.half()  # want CD106
    return acc
