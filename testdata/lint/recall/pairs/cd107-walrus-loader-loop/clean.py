import torch


def run(model, it, opt, crit):
    total = 0.0
    while (batch := next(it, None)) is not None:
        x, y = batch
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        total += loss.item()
    return total
