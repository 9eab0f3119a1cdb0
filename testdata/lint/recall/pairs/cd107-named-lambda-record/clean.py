import torch


def train(model, loader, opt, crit):
    history = []
    record = lambda v: history.append(v)
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x.cuda()), y.cuda())
        loss.backward()
        opt.step()
        record(loss.item())
    return history
