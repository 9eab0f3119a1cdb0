import time

import torch


def time_forward(model, batch):
    t0 = time.time()
    out = model(batch.cuda())
    ms = (time.time() - t0) * 1000  # want CD108
    return out, ms
