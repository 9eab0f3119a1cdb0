import torch


def fetch(pred, stream):
    with torch.cuda.stream(stream):
        host = pred.to("cpu", non_blocking=True)
    stream.synchronize()
    return host.numpy()
