from collections import defaultdict

import torch


def train_one_epoch(model, loader, loss_fn, optimizer, device):
    totals = defaultdict(lambda: torch.tensor(0.0, device=device))
    for images, targets in loader:
        preds = model(images.to(device))
        loss, parts = loss_fn(preds, targets.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        for name, value in parts.items():
            totals[name] += value * images.shape[0]  # want CD107
    return totals
