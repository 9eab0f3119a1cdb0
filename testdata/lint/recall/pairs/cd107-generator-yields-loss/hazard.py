def steps(model, loader, opt):
    for x, y in loader:
        loss = model(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        yield loss


def train(model, loader, opt):
    history = list(steps(model, loader, opt))  # want CD107
    return history
