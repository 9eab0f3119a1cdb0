import torch


def fit(model, xs, ys, crit, opt):
    history = []
    for x, y in zip(xs, ys):
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        history.append(loss * x.shape[0])  # want CD107
    return history
