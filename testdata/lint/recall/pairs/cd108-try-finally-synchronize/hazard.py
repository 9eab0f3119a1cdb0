import time

import torch


def timed_infer(model, x):
    x = x.cuda()
    t0 = time.perf_counter()
    try:
        y = model(x)
    finally:
        elapsed = time.perf_counter() - t0  # want CD108
        print(f"infer {elapsed * 1e3:.1f} ms")
    return y
