import time

import torch


def step_time(model, x, exact=False):
    x = x.cuda()
    t0 = time.perf_counter()
    y = model(x)
    if exact:
        torch.cuda.synchronize()
    return y, time.perf_counter() - t0  # want CD108
