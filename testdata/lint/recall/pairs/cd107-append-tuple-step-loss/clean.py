import torch


def fit(model, loader, optimizer):
    curve = []
    for step, batch in enumerate(loader):
        out = model(**batch)
        out.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        curve.append((step, out.loss.item()))
    return curve
