import torch
import torch.nn.functional as F


def dice_bce(prob, target):
    bce = F.binary_cross_entropy(prob, target)  # want CD105
    inter = (prob * target).sum()
    return bce + 1 - 2 * inter / (prob.sum() + target.sum())


def train_step(model, x, y, opt):
    with torch.autocast("cuda"):
        loss = dice_bce(torch.sigmoid(model(x)), y)
    loss.backward()
    opt.step()
