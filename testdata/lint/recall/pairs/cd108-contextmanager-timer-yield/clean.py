import contextlib
import time

import torch


@contextlib.contextmanager
def timed(label, log):
    start = time.perf_counter()
    yield
    log[label] = time.perf_counter() - start


def profile(model, batch):
    log = {}
    with timed("forward", log):
        out = model(batch.cuda())
        torch.cuda.synchronize()
    return out, log
