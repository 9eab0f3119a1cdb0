import torch
from torch import nn


class RelativeEncoder(nn.Module):
    def __init__(self, layers, d_model):
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.d_model = d_model

    def relative_positions(self, qlen, klen):
        freq_seq = torch.arange(0, self.d_model, 2.0)
        inv_freq = 1 / torch.pow(10000, freq_seq / self.d_model)
        pos_seq = torch.arange(klen, -qlen, -1.0)
        sinusoid = torch.einsum("i,d->id", pos_seq, inv_freq)
        return torch.cat([torch.sin(sinusoid), torch.cos(sinusoid)], dim=-1)[:, None, :]

    def forward(self, h):
        qlen = h.shape[0]
        pos_emb = self.relative_positions(qlen, qlen)  # want CD111
        for layer in self.layers:
            h = layer(h, r=pos_emb)
        return h
