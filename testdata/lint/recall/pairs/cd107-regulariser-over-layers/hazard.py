import torch


def train(model, loader, crit, opt, lam):
    penalties = []
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        for layer in model.children():
            loss = loss + lam * sum(p.pow(2).sum() for p in layer.parameters())
        loss.backward()
        opt.step()
        penalties.append(loss)  # want CD107
    return penalties
