import torch


def infer(model, x, use_amp=True):
    with torch.cuda.amp.autocast(enabled=use_amp):  # want CD104
        return model(x)
