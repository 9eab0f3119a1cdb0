import time

import torch


def bench(model, x, iters=50):
    model = model.cuda().eval()
    x = x.cuda()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    with torch.no_grad():
        start.record()
        for _ in range(iters):
            model(x)
        end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1000 / iters
