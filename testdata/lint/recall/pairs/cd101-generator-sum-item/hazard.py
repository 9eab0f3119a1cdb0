import torch


def mean_eval_loss(losses):
    host = [l.detach().to("cpu", non_blocking=True) for l in losses]
    total = sum(v.item() for v in host)  # want CD101
    return total / max(len(host), 1)
