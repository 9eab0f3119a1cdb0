import time

import torch


def fetch(t):
    host = t.to("cpu", non_blocking=True)
    ready = torch.cuda.Event()
    ready.record()
    while not ready.query():
        time.sleep(0.001)
    return host.sum().item() + float(host[0])
