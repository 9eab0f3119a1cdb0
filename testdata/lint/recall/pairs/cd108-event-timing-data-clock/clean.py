import time

import torch


def benchmark(model, loader, steps=50):
    it = iter(loader)
    data_time, step_ms = 0.0, 0.0
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(steps):
        t0 = time.perf_counter()
        x = next(it)
        data_time += time.perf_counter() - t0
        start.record()
        model(x.cuda(non_blocking=True))
        end.record()
        end.synchronize()
        step_ms += start.elapsed_time(end)
    return data_time / steps, step_ms / steps / 1000
