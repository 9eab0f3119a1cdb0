import torch


def train_epoch(model, loader, opt, loss_fn):
    losses = []
    for x, y in loader:
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach().clone())
    return torch.stack(losses).mean()
