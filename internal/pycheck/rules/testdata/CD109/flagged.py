import torch
import torch.nn.functional as F

x = torch.randn(32, 8, device="cuda", requires_grad=True)
y = torch.sigmoid(x)
mask = y > 0.9
y[mask] = 0  # want CD109
loss = (y * 3).sum()
loss.backward()


class Gate(torch.nn.Module):
    def forward(self, h):
        g = h.tanh()
        g += 1  # want CD109
        return g


def attention_loss(scores, target):
    w = F.softmax(scores, dim=-1)
    w.masked_fill_(w < 0.01, 0.0)  # want CD109
    return (w - target).abs().mean()


def train_step(z, opt):
    r = torch.relu(z)
    r.clamp_(max=6.0)  # want CD109
    r.sum().backward()
    opt.step()


# Flow: the output is replaced by a copy on one branch only; on the other
# the in-place write hits the saved tensor.
class MaybeCopy(torch.nn.Module):
    def forward(self, h, fresh):
        g = torch.sigmoid(h)
        if fresh:
            g = g.clone()
        g.mul_(2)  # want CD109
        return g


class AliasGate(torch.nn.Module):
    def forward(self, x, mask):
        y = torch.sigmoid(x)
        out = y
        out.mul_(mask)  # want CD109
        return out
