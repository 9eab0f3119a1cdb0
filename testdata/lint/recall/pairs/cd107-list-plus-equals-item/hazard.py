import torch


def train(model, loader, opt, crit):
    history = []
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        history += [loss]  # want CD107
    return history
