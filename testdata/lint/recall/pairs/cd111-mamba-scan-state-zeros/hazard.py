import torch
import torch.nn.functional as F
from torch import nn


class MambaBlock(nn.Module):
    def __init__(self, d_inner, d_state, dt_rank):
        super().__init__()
        self.dt_rank = dt_rank
        self.d_state = d_state
        self.x_proj = nn.Linear(d_inner, dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(dt_rank, d_inner)
        self.A_log = nn.Parameter(torch.log(torch.arange(1, d_state + 1).float().repeat(d_inner, 1)))
        self.D = nn.Parameter(torch.ones(d_inner))

    def forward(self, u):
        A = -torch.exp(self.A_log.float())
        delta, B, C = self.x_proj(u).split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        delta = F.softplus(self.dt_proj(delta))
        return self.scan(u, delta, A, B, C)

    def scan(self, u, delta, A, B, C):
        b, l, d_in = u.shape
        n = A.shape[1]
        dA = torch.exp(delta.unsqueeze(-1) * A)
        dBu = delta.unsqueeze(-1) * B.unsqueeze(2) * u.unsqueeze(-1)
        state = torch.zeros((b, d_in, n))  # want CD111
        ys = []
        for i in range(l):
            state = dA[:, i] * state + dBu[:, i]
            ys.append((state * C[:, i].unsqueeze(1)).sum(-1))
        return torch.stack(ys, dim=1) + u * self.D
