import functools

import torch
import torch.nn.functional as F
from lightning import LightningModule
from torch import nn


class PosEmb(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(512, 64)

    def forward(self, x):
        pos = torch.arange(x.shape[1])  # want CD111
        return x + pos[None, :, None]


class Mask(nn.Module):
    def forward(self, scores):
        return scores + torch.zeros(scores.shape[-1])  # want CD111


class Cat(nn.Module):
    def forward(self, h):
        pad = torch.ones(h.shape[0], 1)  # want CD111
        return torch.cat([h, pad], dim=1)


# Flow: moved to the input's device on one branch only.
class Bias(nn.Module):
    def forward(self, x, on_gpu):
        b = torch.ones(x.shape[-1])  # want CD111
        if on_gpu:
            b = b.to(x.device)
        return x + b


class StaticMaskDecoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)

    @staticmethod
    def causal(n):
        return torch.triu(torch.ones(n, n), diagonal=1).bool()

    def forward(self, x):
        mask = self.causal(x.shape[1])  # want CD111
        return self.attn(x, x, x, attn_mask=mask)[0]


def causal_scores(q, k):
    scores = q @ k.transpose(-2, -1)
    t = scores.shape[-1]
    mask = torch.triu(torch.ones(t, t), diagonal=1).bool()  # want CD111
    return scores.masked_fill(mask, float("-inf"))


class CausalAttn(nn.Module):
    def forward(self, q, k):
        return causal_scores(q, k)


class NoisyRegressor(LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        noise = torch.randn(x.shape)  # want CD111
        return F.mse_loss(self(x + noise), y)


class YoloGrid(nn.Module):
    def forward(self, p):
        h, w = p.shape[1], p.shape[2]
        gy, gx = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")  # want CD111
        return p[..., :2] + torch.stack((gx, gy), -1)


class LengthMask(nn.Module):
    def forward(self, x, lengths):
        rows = [torch.ones(n) for n in lengths]  # want CD111
        mask = torch.nn.utils.rnn.pad_sequence(rows, batch_first=True)
        return x * mask.unsqueeze(-1)


class Jitter(nn.Module):
    def forward(self, x):
        eps = torch.rand(x.shape).mul_(0.01)  # want CD111
        return x + eps


class Pick(nn.Module):
    def __init__(self, keep):
        super().__init__()
        self.keep = list(keep)

    def forward(self, x):
        idx = torch.tensor(self.keep)  # want CD111
        return x.index_select(-1, idx)


def rope_table(n, dim):
    t = torch.arange(n).float()
    freqs = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    return torch.cat([torch.sin(t[:, None] * freqs), torch.cos(t[:, None] * freqs)], dim=-1)


class Rope(nn.Module):
    def forward(self, x):
        return x * rope_table(x.shape[1], x.shape[-1])  # want CD111


class FadeProperty(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    @property
    def ramp(self):
        return torch.linspace(0.0, 1.0, self.n)

    def forward(self, x):
        return x * self.ramp  # want CD111


class PadWithOptions(nn.Module):
    def forward(self, x):
        opts = dict(dtype=x.dtype)
        pad = torch.zeros(x.size(0), 4, **opts)  # want CD111
        return torch.cat([x, pad], dim=1)


class LambdaState(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.rnn = nn.GRU(h, h)
        self.init_state = lambda b: torch.zeros(1, b, h)

    def forward(self, x):
        out, _ = self.rnn(x, self.init_state(x.size(1)))  # want CD111
        return out


class PartialState(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.cell = nn.GRUCell(d, d)
        self.zeros = functools.partial(torch.zeros, dtype=torch.float32)

    def forward(self, xs):
        h = self.zeros(xs.size(1), self.cell.hidden_size)  # want CD111
        for x in xs:
            h = self.cell(x, h)
        return h


class PlainProjection(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = torch.rand(d, d)  # want CD111

    def forward(self, x):
        return x @ self.proj.T


def fourier_features(x, n):
    k = torch.arange(n)  # want CD111
    w = 2.0 ** (k / n)
    return x[..., None] * w


class Fourier(nn.Module):
    def forward(self, x):
        return fourier_features(x, 8)


class MaskedStack(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.blocks = nn.ModuleList(layers)

    def forward(self, x):
        mask = torch.ones(x.size(1), x.size(1))  # want CD111
        for blk in self.blocks:
            x = blk(x, mask=mask)
        return x


def banded_scores(q, k):
    bias = torch.zeros(q.shape[-2], k.shape[-2], device=q.device)
    band = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).triu(1)  # want CD111
    bias.masked_fill_(band, float("-inf"))
    return q @ k.transpose(-2, -1) + bias


class Banded(nn.Module):
    def forward(self, q, k):
        return banded_scores(q, k)


class GRUCellState(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.d = d
        self.lin = nn.Linear(2 * d, d)

    def zero_state(self, b):
        return torch.zeros(b, self.d)

    def forward(self, x, h):
        return torch.tanh(self.lin(torch.cat([x, h], -1)))


class Unrolled(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.cell = GRUCellState(d)

    def forward(self, xs):
        h = self.cell.zero_state(xs.size(1))  # want CD111
        for x in xs:
            h = self.cell(x, h)
        return h


def lookup_table(n):
    return torch.arange(n * n).view(n, n)


class PairLookup(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.table = lookup_table(n)  # want CD111

    def forward(self, i, j):
        return self.table[i, j]


# A method of the module that forward() calls on self.
class Scan(nn.Module):
    def forward(self, u, decay):
        return self.run(u, decay)

    def run(self, u, decay):
        state = torch.zeros(u.shape[0], u.shape[-1])  # want CD111
        for i in range(u.shape[1]):
            state = decay * state + u[:, i]
        return state


# A CPU table read with a GPU index through its own method.
class Picked(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.weights = list(weights)

    def forward(self, loss, target):
        w = torch.tensor(self.weights).gather(0, target)  # want CD111
        return (loss * w).mean()


# A functional loss of a layer's output and a CPU target.
class Denoise(nn.Module):
    def forward(self, x, t):
        noise = torch.randn(x.shape)  # want CD111
        return F.mse_loss(self.net(x + 0.1, t), noise)
