import time

import torch


def benchmark(model, loader, steps=50):
    it = iter(loader)
    data_time, step_time = 0.0, 0.0
    for _ in range(steps):
        t0 = time.perf_counter()
        x = next(it)
        data_time += time.perf_counter() - t0
        t1 = time.perf_counter()
        model(x.cuda(non_blocking=True))
        step_time += time.perf_counter() - t1  # want CD108
    return data_time / steps, step_time / steps
