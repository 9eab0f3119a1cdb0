import torch


def train(model, loader, opt, accum=4):
    logged = 0.0
    for i, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x), y) / accum
        loss.backward()
        logged += loss.item()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
    return logged
