import torch
import torch.nn.functional as F


def step(model, x, target):
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(x)
        loss = F.binary_cross_entropy(torch.sigmoid(logits), target)  # want CD105
    return loss
