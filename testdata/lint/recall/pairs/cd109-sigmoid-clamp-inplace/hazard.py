import torch


def focal_loss(logits, target, eps=1e-6):
    probs = torch.sigmoid(logits)
    probs.clamp_(eps, 1 - eps)  # want CD109
    return -(target * probs.log()).mean()
