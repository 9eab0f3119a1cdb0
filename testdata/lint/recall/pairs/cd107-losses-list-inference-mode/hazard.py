import numpy as np
import torch


def score(model, batches):
    losses = []
    for x, y in batches:
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y)
        losses.append(loss)  # want CD107
    return np.mean([l.item() for l in losses])
