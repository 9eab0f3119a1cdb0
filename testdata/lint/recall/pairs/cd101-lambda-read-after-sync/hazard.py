import torch


def rank(scores, names):
    host = scores.to("cpu", non_blocking=True)
    order = sorted(range(len(names)), key=lambda i: -host[i].item())  # want CD101
    return [names[i] for i in order]
