import functools

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


def attention_energy(q, k):
    with torch.autocast("cuda", dtype=torch.float16):
        scores = q @ k.transpose(-2, -1)
    return scores.exp().sum(-1)  # want CD106


def counts_cumsum(n):
    counts = torch.ones(n, dtype=torch.float16, device="cuda")
    return counts.cumsum(0)  # want CD106


def energy_default(features, dtype=torch.float16):
    x = features.to(dtype)
    return x.pow(2).sum(-1)  # want CD106


def like_weights(x):
    w = torch.ones_like(x, dtype=torch.half)
    return (w * x.half()).sum()  # want CD106


def from_np16(a):
    import numpy as np

    t = torch.from_numpy(a.astype(np.float16)).cuda()
    return t.sum()  # want CD106


def per_key(feats):
    h = {k: v.half() for k, v in feats.items()}
    return {k: v.exp().sum() for k, v in h.items()}  # want CD106


def default_autocast_dtype(a, b):
    with torch.autocast("cuda"):
        s = a @ b
    return s.exp().sum()  # want CD106


class HalfWeights(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    @property
    def w16(self):
        return self.proj.weight.detach().half()

    def weight_norm(self):
        return self.w16.norm()  # want CD106


def half_chunks(t, n):
    for c in t.chunk(n):
        yield c.half()


def named_halves(model):
    for name, p in model.named_parameters():
        yield name, p.detach().to(torch.float16)


to_half_lambda = lambda t: t.to(torch.float16)
to_half_partial = functools.partial(torch.Tensor.to, dtype=torch.float16)


def through_generators_and_wrappers(t, model):
    for c in half_chunks(t, 4):
        print(c.pow(2).sum())  # want CD106
    for name, w in named_halves(model):
        print(name, w.norm())  # want CD106
    a = to_half_lambda(t)
    print(a.exp())  # want CD106
    return to_half_partial(t).sum()  # want CD106


def make_probe(acts):
    h = acts.half()

    def magnitude():
        return h.norm(dim=-1)  # want CD106

    return magnitude


def half_net_energy(net, x):
    net = net.half()
    y = net(x.half())
    return y.pow(2).sum()  # want CD106


def centred_energy(x):
    h = x.half()
    mu = h.mean(-1, keepdim=True)
    return (h - mu).pow(2).sum(-1)  # want CD106
