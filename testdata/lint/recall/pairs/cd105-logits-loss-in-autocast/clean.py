import torch
import torch.nn.functional as F


def step(model, x, target):
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(x)
        loss = F.binary_cross_entropy_with_logits(logits, target)
    return loss
