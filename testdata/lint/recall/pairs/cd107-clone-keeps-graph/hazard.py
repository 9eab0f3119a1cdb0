import torch
import torch.nn.functional as F


def train(model, opt, loader):
    history = []
    for x, y in loader:
        opt.zero_grad()
        batch_loss = F.mse_loss(model(x), y)
        batch_loss.backward()
        opt.step()
        history.append(batch_loss.clone())  # want CD107
    return torch.stack(history)
