from collections import defaultdict

import torch


def train_epoch(model, loader, opt):
    running = defaultdict(float)
    for batch in loader:
        loss = model(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running["loss"] += loss.item()
    return dict(running)
