import torch
import torch.nn.functional as F
from torch import nn

logits = torch.randn(128, device="cuda") * 3
target = torch.randint(0, 2, (128,), device="cuda").float()
fixed = F.binary_cross_entropy_with_logits(logits, target)
probs = torch.sigmoid(logits)
ok = F.binary_cross_entropy(probs, target)
ok2 = F.binary_cross_entropy(torch.sigmoid(logits), target)


def step(model, x, y):
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(x)
    # Outside the region, in float32.
    return F.binary_cross_entropy(torch.sigmoid(logits.float()), y)


def disabled(model, x, y):
    with torch.autocast("cuda", dtype=torch.float16):
        h = model(x)
        with torch.autocast("cuda", enabled=False):
            return F.binary_cross_entropy(h.float().sigmoid(), y)


def unknown(pred, y):
    # Nothing says pred is not a probability: no finding.
    return F.binary_cross_entropy(pred, y)


crit = nn.BCEWithLogitsLoss()
with torch.autocast("cuda"):
    l = crit(logits, target)
