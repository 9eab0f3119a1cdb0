import math
import torch
import torch.nn.functional as F

x = torch.randn(32, 8, device="cuda", requires_grad=True)
y = torch.sigmoid(x)
mask = y > 0.9
y = y.masked_fill(mask, 0)
loss = (y * 3).sum()


def cloned(h):
    g = h.tanh().clone()
    g += 1
    return g


def rebound(h):
    g = h.tanh()
    g = g + 1
    g += 1
    return g


@torch.no_grad()
def postprocess(logits):
    p = torch.sigmoid(logits)
    p[p < 0.5] = 0
    return p


def inference(logits):
    with torch.inference_mode():
        p = logits.softmax(-1)
        p[:, 0] = 0
    return p


def silu(z):
    s = F.silu(z)
    s += 1
    return s


def scalar(v):
    e = math.exp(v)
    e += 1
    return e


def inplace_relu(z):
    r = F.relu(z, inplace=True)
    r += 1
    return r


def rescale_zero_terminal_snr(betas):
    alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
    alphas_bar_sqrt = alphas_cumprod.sqrt()
    alphas_bar_sqrt -= alphas_bar_sqrt[-1].clone()
    return alphas_bar_sqrt


# Flow: replaced by a copy on every path before the in-place write.
class AlwaysCopy(torch.nn.Module):
    def forward(self, h, fresh):
        g = torch.sigmoid(h)
        if fresh:
            g = g.clone()
        else:
            g = g * 1.0
        g.mul_(2)
        return g


class AliasGate(torch.nn.Module):
    def forward(self, x, mask):
        y = torch.sigmoid(x)
        out = y.clone()
        out.mul_(mask)
        return out
