import functools

import torch
import torch.nn.functional as F
from lightning import LightningModule
from torch import nn


class PosEmb(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(512, 64)
        self.register_buffer("scale", torch.ones(64))

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        bias = torch.zeros(x.shape[-1]).to(x.device)
        eps = torch.tensor(1e-6)
        moved = torch.ones(3)
        moved = moved.to(x)
        return (x + self.emb(pos)[None] + bias) * self.scale + eps


class Scalars(nn.Module):
    def forward(self, x):
        t = torch.tensor(2.0)
        return x * t


def helper(x):
    # Not a forward(): construction code may legitimately use the CPU.
    return x + torch.zeros(3)


class Offsets(nn.Module):
    def forward(self, pixels, size):
        off = torch.randint(0, 8, ())
        mask = torch.zeros((pixels.shape[0],))
        if mask is not None and mask.ndim == 1:
            mask = mask[:, None]
        return pixels[:, off : off + size]


class Scaled(torch.nn.Module):
    def forward(self, x, scale):
        s = torch.tensor(scale)
        return x * s


class Masked(torch.nn.Module):
    def forward(self, x):
        keep = torch.arange(x.shape[1]) != 0
        return x[:, keep]


# Flow: moved to the input's device on every path.
class Bias(nn.Module):
    def forward(self, x, scale):
        b = torch.ones(x.shape[-1])
        if scale:
            b = (b * 2).to(x.device)
        else:
            b = b.to(x.device)
        return x + b


class FactoryKwargsState(nn.Module):
    def forward(self, x):
        factory_kwargs = {"device": x.device, "dtype": x.dtype}
        h0 = torch.zeros(1, x.size(0), 8, **factory_kwargs)
        return x + h0


class StaticMaskDecoderOnDevice(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)

    @staticmethod
    def causal(n, device):
        return torch.triu(torch.ones(n, n, device=device), diagonal=1).bool()

    def forward(self, x):
        mask = self.causal(x.shape[1], x.device)
        return self.attn(x, x, x, attn_mask=mask)[0]


def causal_scores(q, k):
    scores = q @ k.transpose(-2, -1)
    t = scores.shape[-1]
    mask = torch.triu(torch.ones(t, t, device=scores.device), diagonal=1).bool()
    return scores.masked_fill(mask, float("-inf"))


def fourier_table(dim, box):
    emb = 100 ** (torch.arange(dim) / dim)
    return emb.to(device=box.device) * box.unsqueeze(-1)


class CausalAttn(nn.Module):
    def forward(self, q, k, box):
        return causal_scores(q, k) + fourier_table(q.shape[-1], box).sum()


class NoisyRegressor(LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        noise = torch.randn_like(x)
        return F.mse_loss(self(x + noise), y)


def labels_of(results):
    # Every element is made on the CPU: joining them mixes no devices.
    parts = [torch.full((len(r),), i, dtype=torch.int32) for i, r in enumerate(results)]
    return torch.cat(parts)


class LabelHead(nn.Module):
    def forward(self, results):
        labels = labels_of(results)
        codes = torch.cat([torch.zeros(len(r)) for r in results])
        return labels, codes


class PickScalar(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * torch.tensor(self.k)


class TypedSteps(nn.Module):
    def forward(self, x):
        # .type(x.type()) follows the input's tensor type, CUDA included.
        steps = torch.arange(x.size(-1)).type(x.type())
        return x * steps


class FadeBuffer(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    @property
    def ramp(self):
        # Built on the device of the module's own buffer.
        return torch.linspace(0.0, 1.0, self.n, device=self.scale.device)

    def forward(self, x):
        return x * self.ramp


class PadWithOptions(nn.Module):
    def forward(self, x, **factory):
        # The mapping holds the device, or may (its keys are not known).
        opts = {"dtype": x.dtype, "device": x.device}
        pad = torch.zeros(x.size(0), 4, **opts)
        more = torch.zeros(x.size(0), 4, **factory)
        return torch.cat([x, pad, more], dim=1)


class LambdaState(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.rnn = nn.GRU(h, h)
        self.init_state = lambda x: torch.zeros(1, x.size(1), self.rnn.hidden_size, device=x.device)

    def forward(self, x):
        out, _ = self.rnn(x, self.init_state(x))
        return out


class PartialState(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.cell = nn.GRUCell(d, d)
        self.zeros = functools.partial(torch.zeros, dtype=torch.float32)
        self.on_gpu = functools.partial(torch.zeros, device="cuda")

    def forward(self, xs):
        h = self.zeros(xs.size(1), self.cell.hidden_size, device=xs.device)
        g = self.on_gpu(xs.size(1), self.cell.hidden_size)
        for x in xs:
            h = self.cell(x, h + g)
        return h


class BufferProjection(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.register_buffer("proj", torch.rand(d, d))

    def forward(self, x):
        return x @ self.proj.T


class MovedProjection(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = torch.rand(d, d)

    def forward(self, x):
        return x @ self.proj.to(x.device).T


def fourier_features(x, n):
    k = torch.arange(n, device=x.device)
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
        mask = torch.ones(x.size(1), x.size(1), device=x.device)
        for blk in self.blocks:
            x = blk(x, mask=mask)
        return x


class GRUCellState(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.d = d
        self.lin = nn.Linear(2 * d, d)

    def zero_state(self, b):
        return torch.zeros(b, self.d, device=self.lin.weight.device)

    def forward(self, x, h):
        return torch.tanh(self.lin(torch.cat([x, h], -1)))


class Unrolled(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.cell = GRUCellState(d)

    def forward(self, xs):
        h = self.cell.zero_state(xs.size(1))
        for x in xs:
            h = self.cell(x, h)
        return h


class Rope(nn.Module):
    def forward(self, ids, device):
        return ids.to(device).float().sin()


class WithRope(nn.Module):
    def __init__(self):
        super().__init__()
        self.rope = Rope()

    def forward(self, x):
        ids = torch.arange(x.shape[1])
        return x + self.rope(ids, device=x.device)


def lookup_table(n):
    return torch.arange(n * n).view(n, n)


class PairLookup(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("table", lookup_table(n))

    def forward(self, i, j):
        return self.table[i, j]


# A method forward() calls, creating its state where the inputs are.
class Scan(nn.Module):
    def forward(self, u, decay):
        return self.run(u, decay)

    def run(self, u, decay):
        state = torch.zeros(u.shape[0], u.shape[-1], device=u.device)
        for i in range(u.shape[1]):
            state = decay * state + u[:, i]
        return state





# A mask filled through itself stays on the CPU until it is moved; a
# module constant is a number.
MINUS_INF = -10000.0


class Masked(nn.Module):
    def forward(self, x):
        return x + self.causal(x.shape[1]).to(x.device)

    def causal(self, n):
        mask = torch.triu(torch.ones(n, n), diagonal=1)
        mask = mask.float().masked_fill(mask == 1, float("-inf"))
        return mask * MINUS_INF


# The target made where the layer's output is.
class Denoise(nn.Module):
    def forward(self, x, t):
        noise = torch.randn_like(x)
        return F.mse_loss(self.net(x + 0.1, t), noise)
