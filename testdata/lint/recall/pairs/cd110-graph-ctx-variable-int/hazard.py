import torch


def capture(static_model, static_in: torch.Tensor, pool=None):
    g = torch.cuda.CUDAGraph()
    capture_ctx = torch.cuda.graph(g, pool=pool)
    with capture_ctx:
        out = static_model(static_in)
        n_valid = int(out.gt(0).sum())  # want CD110
    return g, out, n_valid
