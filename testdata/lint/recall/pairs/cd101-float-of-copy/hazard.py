import torch


def metrics(loss, acc):
    l = loss.detach().cpu(non_blocking=True)
    return {"loss": float(l), "acc": acc}  # want CD101
