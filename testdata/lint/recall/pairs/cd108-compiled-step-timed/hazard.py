import time

import torch


@torch.compile
def fused_step(x, w):
    return torch.relu(x @ w).sum(dim=-1)


def time_step(x, w):
    x = x.cuda()
    t0 = time.perf_counter()
    y = fused_step(x, w)
    dt = time.perf_counter() - t0  # want CD108
    return y, dt
