import contextlib
import time

import torch


@contextlib.contextmanager
def stopwatch(name):
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    t = time.perf_counter()
    yield
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    print(name, time.perf_counter() - t)


def step(model, x):
    with stopwatch("fwd"):
        y = model(x.to("cuda"))
    return y
