def train(model, loader, opt, crit, steps):
    losses = [None] * steps
    for i, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        losses[i] = loss.item()
    return losses
