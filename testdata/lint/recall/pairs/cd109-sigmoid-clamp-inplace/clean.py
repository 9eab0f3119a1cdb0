import torch


def focal_loss(logits, target, eps=1e-6):
    probs = torch.sigmoid(logits)
    probs = probs.clamp(eps, 1 - eps)
    return -(target * probs.log()).mean()
