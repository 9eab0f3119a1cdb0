import torch


def capture_select(x, threshold):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        keep = torch.nonzero(x > threshold)  # want CD110
        picked = x[keep]
    return g, picked
