import torch


def validate(model, loader, crit):
    total = 0
    for x, y in loader:
        loss = crit(model(x), y)
        total += loss  # want CD107
    return total / len(loader)
