import torch


def grad_norm(grads):
    flat = torch.cat([g.flatten() for g in grads]).to(torch.float16)
    return flat.norm()  # want CD106
