import torch


def build_graph(static_logits):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        picked = torch.where(static_logits > 0, static_logits, torch.zeros_like(static_logits))
    return g, picked
