import functools

import torch

x = torch.full((4096,), 300.0, device="cuda")
with torch.autocast("cuda", dtype=torch.float16):
    h = torch.nn.functional.linear(x[None], torch.eye(4096, device="cuda"))
    under_autocast = (h ** 2).sum()

fixed = (x.half().float() ** 2).sum()
model = torch.nn.Linear(4, 4).half()


def reduce_fp32(x):
    h = x.half()
    return h.float().sum()


def under_autocast(x):
    with torch.autocast("cuda", dtype=torch.float16):
        return (x.half() ** 2).sum()


def elementwise(x):
    h = x.half()
    return h * 0.5 + 1


def store(x):
    return x.to(torch.float16)


def sum_in_float32(x):
    return x.half().sum(dtype=torch.float32)


# A float16 matmul accumulates in float32 (cuBLAS); softmax with a
# float32 dtype computes in float32.
def attention(q, k, scale):
    scores = (q.half() @ k.half().transpose(-2, -1)) * scale
    return torch.softmax(scores, dim=-1, dtype=torch.float32)


# Multiplying by a float32 tensor promotes the result to float32.
def weighted(x, weights):
    y = x.half() * weights
    return y.sum()


# bfloat16 has float32's exponent range: its sums do not overflow at 65504.
def bf16_norm(grads):
    flat = torch.cat([g.flatten() for g in grads]).to(torch.bfloat16)
    scaled = flat * 2.0
    return flat.norm() + scaled.pow(2).sum()


# Converted back to float32 before the reduction.
def energy(feats):
    h = feats.half()
    scaled = h * 4.0
    return scaled.float().pow(2).sum()


def attention_energy(q, k):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        scores = q @ k.transpose(-2, -1)
    return scores.exp().sum(-1)


def attention_energy_fp32(q, k):
    with torch.autocast("cuda", dtype=torch.float16):
        scores = q @ k.transpose(-2, -1)
    return scores.float().exp().sum(-1)


def counts_cumsum(n):
    counts = torch.ones(n, dtype=torch.float32, device="cuda")
    return counts.cumsum(0)


def energy_default(features, dtype=torch.float16):
    x = features.to(torch.float32)
    return x.pow(2).sum(-1)


def like_weights_fp32(x):
    w = torch.ones_like(x, dtype=torch.float32)
    return (w * x).sum()


def per_key_fp32(feats):
    h = {k: v.float() for k, v in feats.items()}
    return {k: v.exp().sum() for k, v in h.items()}


def bf16_autocast(a, b):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        s = a @ b
    return s.exp().sum()


def moved_then_upcast(a):
    t = a.half().cuda().to(torch.float32)
    return t.sum()


def energy_default_float32(n):
    torch.set_default_dtype(torch.float32)
    feats = torch.randn(n, 8, device="cuda")
    return (feats * feats).sum()


def energy_explicit_dtype_after_half_default(n):
    torch.set_default_dtype(torch.float16)
    feats = torch.randn(n, 8, device="cuda", dtype=torch.float32)
    return (feats * feats).sum()


class FullWeights(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    @property
    def w32(self):
        return self.proj.weight.detach().float()

    def weight_norm(self):
        return self.w32.norm()


def full_chunks(t, n):
    for c in t.chunk(n):
        yield c.float()


def named_halves(model):
    for name, p in model.named_parameters():
        yield name, p.detach().to(torch.float16)


to_full_lambda = lambda t: t.to(torch.float32)
to_full_partial = functools.partial(torch.Tensor.to, dtype=torch.float32)


def through_generators_and_wrappers(t, model):
    for c in full_chunks(t, 4):
        print(c.pow(2).sum())
    for name, w in named_halves(model):
        # The name is the yielded element read, not the float16 copy.
        print(name.upper(), w.float().norm())
    a = to_full_lambda(t)
    print(a.exp())
    return to_full_partial(t).sum()


def make_probe(acts):
    h = acts.half()
    h = h.float()

    def magnitude(h=None):
        return h.norm(dim=-1)

    return magnitude


def time_half_backward(net, x):
    net = net.half()
    y = net(x.half())
    y.sum().backward()


def centred_energy(x):
    h = x.half()
    mu = h.float().mean(-1, keepdim=True)
    return (h - mu).pow(2).sum(-1)
