import torch


def fit(model, loader, opt, crit):
    curve = []
    for x, y in loader:
        opt.zero_grad()
        (loss := crit(model(x), y)).backward()
        opt.step()
        curve.append(loss.item())
    return curve
