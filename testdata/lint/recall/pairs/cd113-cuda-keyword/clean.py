import torch


def shard(x, rank):
    return x.cuda(device=rank)
