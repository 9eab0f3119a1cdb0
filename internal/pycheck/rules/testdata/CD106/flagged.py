import torch

x = torch.full((4096,), 300.0, device="cuda")
manual = (x.half() ** 2).sum()  # want CD106


def energy(x):
    h = x.to(torch.float16)
    return h.pow(2).sum()  # want CD106


def norm(x):
    return x.to(dtype=torch.float16).norm()  # want CD106


def exp(x):
    return torch.exp(x.half())  # want CD106


def var(x):
    y = x.type(torch.float16)
    return y.var()  # want CD106
