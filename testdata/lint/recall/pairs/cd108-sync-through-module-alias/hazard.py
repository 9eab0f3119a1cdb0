import time

import torch
import torch.cuda as tc


def bench(model, batch):
    x = batch.cuda()
    tc.synchronize()
    start = time.perf_counter()
    out = model(x)
    took = time.perf_counter() - start  # want CD108
    return out, took
