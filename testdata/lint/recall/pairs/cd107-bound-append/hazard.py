import torch


def fit(model, loader, opt, loss_fn):
    losses = []
    record = losses.append
    for x, y in loader:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        record(loss)  # want CD107
    return losses
