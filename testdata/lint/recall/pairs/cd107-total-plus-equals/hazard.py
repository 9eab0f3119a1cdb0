import torch


def train(model, loader, opt, crit):
    total_loss = 0
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        total_loss += loss  # want CD107
    return total_loss
