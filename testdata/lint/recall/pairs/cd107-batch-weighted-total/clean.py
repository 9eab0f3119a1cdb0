import torch


def epoch(model, loader, opt, crit):
    total, seen = 0.0, 0
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        total += loss.item() * x.size(0)
        seen += x.size(0)
    return total / seen
