import torch


def train_epoch(model, loader, opt, crit):
    total = torch.zeros((), device="cuda")
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        total.add_(loss)  # want CD107
    return total / len(loader)
