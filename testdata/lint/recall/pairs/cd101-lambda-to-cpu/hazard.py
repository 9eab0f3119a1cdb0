import torch

to_cpu = lambda t: t.to("cpu", non_blocking=True)


def log_norm(grad):
    n = to_cpu(grad.norm())
    print(f"grad norm {n.item():.3f}")  # want CD101
