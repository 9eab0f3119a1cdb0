import torch


def train(model, loader, crit, opt, lam):
    penalties = []
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        reg = 0
        for layer in model.children():
            reg += sum(p.pow(2).sum() for p in layer.parameters())
        loss = loss + lam * reg
        loss.backward()
        opt.step()
        penalties.append(loss.item())
    return penalties
