import time

import torch
import torch.cuda as tc


def bench(model, batch):
    x = batch.cuda()
    tc.synchronize()
    start = time.perf_counter()
    out = model(x)
    tc.synchronize()
    took = time.perf_counter() - start
    return out, took
