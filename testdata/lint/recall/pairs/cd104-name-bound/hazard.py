import torch

autocast = torch.cuda.amp.autocast  # want CD104


def predict(net, vol):
    with autocast():
        return net(vol)
