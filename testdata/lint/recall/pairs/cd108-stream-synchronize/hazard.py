from time import perf_counter

import torch


def bench_matmul(a, b, iters=10):
    a, b = a.cuda(), b.cuda()
    t = perf_counter()
    for _ in range(iters):
        torch.mm(a, b)
    dt = perf_counter() - t  # want CD108
    return dt / iters
