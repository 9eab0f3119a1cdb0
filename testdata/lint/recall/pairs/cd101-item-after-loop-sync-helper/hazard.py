import torch


def gather(outputs):
    hosts = [out.detach().to("cpu", non_blocking=True) for out in outputs]
    total = 0.0
    for h in hosts:
        total += h.sum().item()  # want CD101
    return total
