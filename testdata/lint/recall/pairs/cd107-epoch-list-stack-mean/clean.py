import torch
from torch import nn


def train(net, optim, loader, epochs):
    crit = nn.SmoothL1Loss()
    curve = []
    for epoch in range(epochs):
        epoch_errs = []
        for xb, yb in loader:
            err = crit(net(xb), yb)
            optim.zero_grad()
            err.backward()
            optim.step()
            epoch_errs.append(err.detach())
        curve.append(torch.stack(epoch_errs).mean().item())
    return curve
