import torch


def train_epoch(model, loader, opt, crit):
    total, seen = 0.0, 0
    for x, y in loader:
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total, seen = total + loss.item(), seen + len(y)
    return total / seen
