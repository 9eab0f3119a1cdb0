import time

import torch


def timed_infer(model, x):
    x = x.cuda()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    try:
        y = model(x)
    finally:
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        print(f"infer {elapsed * 1e3:.1f} ms")
    return y
