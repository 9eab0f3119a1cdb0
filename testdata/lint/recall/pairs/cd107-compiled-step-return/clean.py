import torch


@torch.compile
def train_step(model, opt, crit, x, y):
    opt.zero_grad()
    loss = crit(model(x), y)
    loss.backward()
    opt.step()
    return loss.detach()


def epoch(model, opt, crit, loader):
    running = 0.0
    for x, y in loader:
        running += train_step(model, opt, crit, x, y)
    return running
