import torch

from metrics import fetch_pair


def log_step(writer, step, loss, acc):
    host_loss, host_acc = fetch_pair(loss, acc)
    torch.cuda.synchronize()
    writer.add_scalar("acc", host_acc.item(), step)
    return host_loss
