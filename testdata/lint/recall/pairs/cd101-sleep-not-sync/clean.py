import time

import torch


def snapshot(t):
    host = t.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    return host.sum().item()
