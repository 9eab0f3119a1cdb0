import torch


def capture(model, x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = model(x)
        y = torch.where((y > 0).any(), y * 2, y)
    return g, y
