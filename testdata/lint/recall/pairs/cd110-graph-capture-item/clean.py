import torch


def capture(model, static_x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(static_x)
        peak = out.abs().max()
    g.replay()
    torch.cuda.synchronize()
    return g, out, peak.item()
