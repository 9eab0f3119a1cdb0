import torch


def normalise_and_send(x):
    host = x.float().pin_memory()
    dev = host.cuda(non_blocking=True)
    host *= 0.5  # want CD102
    return dev, host
