import torch


def evaluate(model, loader, crit):
    total = 0
    for x, y in loader:
        loss = crit(model(x), y)
        total = total + loss  # want CD107
    return total / len(loader)
