import torch


def to_numpy(t, overlap):
    host = t.to("cpu", non_blocking=True) if overlap else t.cpu()
    if overlap:
        torch.cuda.synchronize()
    return host.numpy()
