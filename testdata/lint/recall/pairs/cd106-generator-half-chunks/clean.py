import torch


def half_chunks(x, n):
    for c in x.chunk(n):
        yield c.to(torch.float32)


def sum_sq(x):
    total = 0.0
    for c in half_chunks(x, 8):
        total += c.pow(2).sum().item()
    return total
