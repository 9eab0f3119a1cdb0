import torch


def sum_gradients(grads, n):
    acc = torch.zeros(n, device="cuda", dtype=torch.float32)
    for g in grads:
        acc += g.float()
    return acc
