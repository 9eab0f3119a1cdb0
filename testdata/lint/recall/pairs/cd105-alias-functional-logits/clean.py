import torch
from torch.nn import functional as Fn


def bce(logits, target):
    return Fn.binary_cross_entropy_with_logits(logits, target)
