import torch


def grad_norm(params):
    flat = torch.cat([p.grad.flatten() for p in params]).to(torch.float16)
    return torch.linalg.vector_norm(flat)  # want CD106
