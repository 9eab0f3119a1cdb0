import torch


def grad_norm(grads):
    flat = torch.cat([g.flatten() for g in grads]).to(torch.bfloat16)
    return flat.norm()
