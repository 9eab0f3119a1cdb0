from time import perf_counter

import torch


def bench_matmul(a, b, iters=10):
    a, b = a.cuda(), b.cuda()
    torch.cuda.synchronize()
    t = perf_counter()
    for _ in range(iters):
        torch.mm(a, b)
    torch.cuda.current_stream().synchronize()
    dt = perf_counter() - t
    return dt / iters
