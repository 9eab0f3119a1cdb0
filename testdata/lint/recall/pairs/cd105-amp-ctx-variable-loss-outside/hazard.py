import contextlib

import torch
import torch.nn.functional as F


def step(net, x, y, use_amp: bool):
    ctx = torch.autocast("cuda", dtype=torch.float16) if use_amp else contextlib.nullcontext()
    with ctx:
        p = torch.sigmoid(net(x))
        loss = F.binary_cross_entropy(p, y)  # want CD105
    return loss
