import torch


def shard(x):
    return x.cuda(device=2)  # want CD113
