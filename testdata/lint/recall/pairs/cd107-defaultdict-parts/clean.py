from collections import defaultdict

import torch


def train_one_epoch(model, loader, loss_fn, optimizer, device):
    totals = defaultdict(float)
    for images, targets in loader:
        preds = model(images.to(device))
        loss, parts = loss_fn(preds, targets.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        for name, value in parts.items():
            totals[name] += value.item() * images.shape[0]
    return totals
