import torch
from torch import autocast, nn


def objectness_loss(obj_logits, target):
    with autocast(device_type="cuda", dtype=torch.float16):
        return nn.BCEWithLogitsLoss()(obj_logits, target)
