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
    with timed("forward", log):  # want CD108
        out = model(batch.cuda())
    return out, log
