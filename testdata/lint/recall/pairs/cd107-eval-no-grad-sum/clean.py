import torch


@torch.no_grad()
def evaluate(model, loader, crit):
    total = 0
    for x, y in loader:
        loss = crit(model(x), y)
        total = total + loss
    return total / len(loader)
