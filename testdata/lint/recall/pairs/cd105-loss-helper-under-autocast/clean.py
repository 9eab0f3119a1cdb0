import torch
import torch.nn.functional as F


def dice_bce(logits, target):
    bce = F.binary_cross_entropy_with_logits(logits, target)
    prob = torch.sigmoid(logits)
    inter = (prob * target).sum()
    return bce + 1 - 2 * inter / (prob.sum() + target.sum())


def train_step(model, x, y, opt):
    with torch.autocast("cuda"):
        loss = dice_bce(model(x), y)
    loss.backward()
    opt.step()
