import torch


def layer_means(acts):
    halves = [a.half() for a in acts]
    return [h.mean() for h in halves]  # want CD106
