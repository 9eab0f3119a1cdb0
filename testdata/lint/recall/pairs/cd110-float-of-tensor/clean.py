import torch


def capture(fn, x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        loss = fn(x)
    return g, loss
