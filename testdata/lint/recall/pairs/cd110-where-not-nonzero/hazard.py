import torch


def build_graph(static_logits):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        keep = torch.nonzero(static_logits > 0)  # want CD110
        picked = static_logits[keep[:, 0]]
    return g, picked
