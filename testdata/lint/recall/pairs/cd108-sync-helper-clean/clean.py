import time

import torch


def _get_time():
    torch.cuda.synchronize()
    return time.time()


def train_timed(step_fn, batch):
    batch = batch.to("cuda")
    begin = _get_time()
    step_fn(batch)
    return _get_time() - begin
