import time as t

import torch


def bench(model, x):
    x = x.cuda()
    torch.cuda.synchronize()
    t0 = t.time()
    out = model(x)
    torch.cuda.synchronize()
    dt = t.time() - t0
    return out, dt
