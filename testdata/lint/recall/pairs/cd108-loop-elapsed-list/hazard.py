import time

import torch


def latency(model, x, iters=20):
    model = model.cuda().eval()
    x = x.cuda()
    elapsed = []
    for _ in range(iters):
        start = time.perf_counter()
        model(x)
        elapsed.append(time.perf_counter() - start)  # want CD108
    return sum(elapsed) / iters
