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


# The product of float16 operands, scaled, is float16 too.
def attention(q, k, scale):
    scores = (q.half() @ k.half().transpose(-2, -1)) * scale
    return scores.exp()  # want CD106


# The float16 value goes on through a scale into another name.
def energy(feats):
    h = feats.half()
    scaled = h * 4.0
    return scaled.pow(2).sum()  # want CD106
