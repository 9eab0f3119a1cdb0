import torch


def train_epoch(model, loader, opt, crit):
    history = []
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x.cuda()), y.cuda())
        loss.backward()
        opt.step()
        history.append(loss)  # want CD107
    log = history
    print("last", log[-1])
    return len(log)
