import time

import torch


def snapshot(t):
    host = t.to("cpu", non_blocking=True)
    time.sleep(1)  # waiting on the clock does not wait on the stream
    return host.sum().item()  # want CD101
