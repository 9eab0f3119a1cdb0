import torch


def capture(fn, x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        loss = fn(x)
        value = float(loss)  # want CD110
    return g, value
