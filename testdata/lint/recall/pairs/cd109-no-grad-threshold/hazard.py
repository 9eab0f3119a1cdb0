import torch


def binarise(codes):
    z = torch.tanh(codes)
    z[z.abs() < 0.1] = 0  # want CD109
    return z


def train(model, loader, opt):
    for x in loader:
        loss = (binarise(model(x)) - x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
