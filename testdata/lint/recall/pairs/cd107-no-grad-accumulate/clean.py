import torch


@torch.no_grad()
def validate(model, loader, crit):
    total = 0
    for x, y in loader:
        loss = crit(model(x), y)
        total += loss
    return total / len(loader)
