import torch
import torch.nn.functional as F

x = torch.randn(32, 8, device="cuda", requires_grad=True)
y = torch.sigmoid(x)
mask = y > 0.9
y[mask] = 0  # want CD109
loss = (y * 3).sum()
loss.backward()


def gate(h):
    g = h.tanh()
    g += 1  # want CD109
    return g


def attn(scores):
    w = F.softmax(scores, dim=-1)
    w.masked_fill_(w < 0.01, 0.0)  # want CD109
    return w


def act(z):
    r = torch.relu(z)
    r.clamp_(max=6.0)  # want CD109
    return r
