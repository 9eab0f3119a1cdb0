import torch


def to_numpy(t, fast=False):
    if not fast:
        return t.cpu().numpy()
    out = t.to("cpu", non_blocking=True)
    torch.cuda.current_stream().synchronize()
    return out.numpy()
