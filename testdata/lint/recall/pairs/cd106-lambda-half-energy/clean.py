import torch

fp32 = lambda t: t.to(torch.float32)


def energy(signal):
    s = fp32(signal.cuda())
    return s.pow(2).sum()
