import torch


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0.0
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n


def train_one_epoch(model, loader, opt, crit):
    losses = AverageMeter()
    history = []
    for x, y in loader:
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss.item())
        losses.update(loss.item(), x.size(0))
    return losses.sum / max(losses.count, 1), history
