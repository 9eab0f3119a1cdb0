import torch

to_cpu = lambda t: t.to("cpu", non_blocking=True)


def log_norm(grad):
    n = to_cpu(grad.norm())
    torch.cuda.synchronize()
    print(f"grad norm {n.item():.3f}")
