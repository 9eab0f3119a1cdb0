import torch


def train_step(model, batch, opt, device):
    x = batch.to(device, non_blocking=True)
    loss = model(x).mean()
    loss.backward()
    opt.step()
    host_loss = loss.detach().to("cpu", non_blocking=True)
    return float(host_loss)  # want CD101
