import torch


def train_step(model, batch, opt, device):
    x = batch.to(device, non_blocking=True)
    loss = model(x).mean()
    loss.backward()
    opt.step()
    return loss.item()
