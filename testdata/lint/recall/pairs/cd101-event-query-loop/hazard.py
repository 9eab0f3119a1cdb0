import time

import torch


def fetch(t):
    host = t.to("cpu", non_blocking=True)
    ready = torch.cuda.Event()
    ready.record()
    return host.sum().item() + float(host[0])  # want CD101
