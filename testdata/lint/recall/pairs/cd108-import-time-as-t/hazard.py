import time as t

import torch


def bench(model, x):
    x = x.cuda()
    t0 = t.time()
    out = model(x)
    dt = t.time() - t0  # want CD108
    return out, dt
