import torch


def train_epoch(model, loader, opt, loss_fn):
    total = 0.0
    for x, y in loader:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        total += loss  # want CD107
    return total / len(loader)
