import time

import torch


def latency(model, x, iters=20):
    model = model.cuda().eval()
    x = x.cuda()
    elapsed = []
    for _ in range(iters):
        start = time.perf_counter()
        model(x)
        torch.cuda.synchronize()
        elapsed.append(time.perf_counter() - start)
    return sum(elapsed) / iters
