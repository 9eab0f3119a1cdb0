import time

import torch


def time_forward(model, batch):
    started_at = time.time()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    out = model(batch.cuda())
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end)
    return out, ms, started_at
