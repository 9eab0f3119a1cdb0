import torch


def offload(tensors):
    """Queue copies of every tensor to pinned host memory."""
    return [t.to(device="cpu", non_blocking=True) for t in tensors]


def offload_one(t, pinned):
    return t.to("cpu", non_blocking=True) if pinned else t.cpu()


def drain():
    torch.cuda.synchronize()
