import time

import torch


def _get_time():
    return time.time()


def train_timed(step_fn, batch):
    batch = batch.to("cuda")
    begin = time.time()
    step_fn(batch)
    return time.time() - begin  # want CD108
