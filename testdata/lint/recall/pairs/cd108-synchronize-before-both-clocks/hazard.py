import time

import torch


@torch.no_grad()
def latency(model, x, runs=20):
    x = x.cuda()
    start = time.perf_counter()
    for _ in range(runs):
        model(x)
    return (time.perf_counter() - start) / runs  # want CD108
