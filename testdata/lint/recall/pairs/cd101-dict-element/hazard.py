import torch


def log_step(stats, loss, step):
    stats["loss"] = loss.detach().to("cpu", non_blocking=True)
    print(step, stats["loss"].item())  # want CD101
