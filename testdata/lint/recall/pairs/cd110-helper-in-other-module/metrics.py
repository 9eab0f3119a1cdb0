def grad_norm(parameters):
    total = sum(p.grad.norm() ** 2 for p in parameters if p.grad is not None)
    return float(total.sqrt().item())


def grad_norm_tensor(parameters):
    return sum(p.grad.norm() ** 2 for p in parameters if p.grad is not None).sqrt()
