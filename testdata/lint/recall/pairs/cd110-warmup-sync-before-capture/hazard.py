import torch


def build_graph(model, static_x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_y = model(static_x)
        torch.cuda.synchronize()  # want CD110
    return g, static_y
