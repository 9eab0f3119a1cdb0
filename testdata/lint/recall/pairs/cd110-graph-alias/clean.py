import torch
from torch.cuda import CUDAGraph
from torch.cuda import graph as cuda_graph


def warm_and_capture(decode, tokens):
    g = CUDAGraph()
    with cuda_graph(g):
        logits = decode(tokens)
        best = logits.argmax(-1)
    return g, best
