import torch
import torch.nn.functional as F


@torch.autocast("cuda", dtype=torch.bfloat16)
def pair_loss(scores, labels):
    return F.binary_cross_entropy_with_logits(scores, labels)
