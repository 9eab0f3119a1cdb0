import torch


def make_cdf(weights):
    w = weights.to(torch.float16)

    def cdf():
        return w.float().cumsum(0)

    return cdf
