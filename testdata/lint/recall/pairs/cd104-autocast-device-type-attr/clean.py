import torch


def infer(model, x, use_amp=True):
    with torch.autocast(device_type=x.device.type, enabled=use_amp):
        return model(x)
