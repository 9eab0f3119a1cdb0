import torch


def log_step(stats, loss, step):
    stats["loss"] = loss.detach().to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    print(step, stats["loss"].item())
