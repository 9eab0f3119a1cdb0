import torch


def validate(model, loader, crit):
    val_loss = 0
    with torch.no_grad():
        for x, y in loader:
            loss = crit(model(x), y)
            val_loss += loss
    return val_loss / len(loader)


def train_step(model, x, y, crit, opt):
    opt.zero_grad()
    loss = crit(model(x), y)
    loss.backward()
    opt.step()
