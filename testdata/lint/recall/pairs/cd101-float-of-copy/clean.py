import torch


def metrics(loss, acc):
    l = loss.detach().cpu()
    return {"loss": float(l), "acc": acc}
