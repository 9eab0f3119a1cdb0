import torch
import torch.nn.functional as F
from torch import nn

logits = torch.randn(128, device="cuda") * 3
target = torch.randint(0, 2, (128,), device="cuda").float()
loss = F.binary_cross_entropy(logits, target)  # want CD105


def step(model, x, y):
    with torch.autocast("cuda", dtype=torch.float16):
        p = torch.sigmoid(model(x))
        return F.binary_cross_entropy(p, y)  # want CD105


class Trainer:
    def __init__(self):
        self.crit = nn.BCELoss()

    def train_step(self, model, x, y):
        with torch.amp.autocast("cuda"):
            out = model(x).sigmoid()
            return self.crit(out, y)  # want CD105


def direct(model, x, y):
    with torch.autocast(device_type="cuda"):
        return nn.BCELoss()(model(x).sigmoid(), y)  # want CD105


def head(out_logits, y):
    return torch.nn.functional.binary_cross_entropy(out_logits, y)  # want CD105
