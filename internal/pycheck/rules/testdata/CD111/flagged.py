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
