import torch


def half_grad_norm(model, norm_type=2.0):
    model.half()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    norms = torch.stack([torch.norm(g.float(), norm_type) for g in grads])
    return torch.norm(norms, norm_type)
