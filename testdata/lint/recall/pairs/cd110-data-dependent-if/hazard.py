import torch


def capture(model, x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = model(x)
        if (y > 0).any():  # want CD110
            y = y * 2
    return g, y
