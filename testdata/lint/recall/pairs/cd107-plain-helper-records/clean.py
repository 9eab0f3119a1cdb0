import torch


def record(log, value):
    log.append(value)


def fit(model, loader, opt, crit):
    log = []
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        record(log, loss.item())
    return log
