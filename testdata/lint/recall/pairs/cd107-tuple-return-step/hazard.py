import torch.nn.functional as F


def step(model, opt, x, y):
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    return loss, {"acc": (logits.argmax(1) == y).float().mean().item()}


def run_epoch(model, opt, loader):
    epoch_loss = 0
    for x, y in loader:
        loss, logs = step(model, opt, x, y)
        epoch_loss += loss  # want CD107
    return epoch_loss / len(loader)
