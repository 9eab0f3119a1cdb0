import time

import torch


def step_time(model, x, exact=False):
    x = x.cuda()
    t0 = time.perf_counter()
    y = model(x)
    torch.cuda.synchronize()
    if exact:
        print("synchronised")
    return y, time.perf_counter() - t0
