import torch


def _as_fp32(t):
    return t.float()


def grad_norm(grads):
    flat = torch.cat([g.flatten() for g in grads]).to(torch.float16)
    return _as_fp32(flat).norm()
