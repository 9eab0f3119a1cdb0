import torch


def train(model, loader, opt, crit, epochs):
    history = []
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader):
            opt.zero_grad()
            loss = crit(model(x.cuda()), y.cuda())
            loss.backward()
            opt.step()
            history.append({"epoch": epoch, "step": step, "loss": loss})  # want CD107
    return history
