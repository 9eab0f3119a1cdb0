import torch


def segment(layers, x, eps=1e-5):
    h = x
    for conv in layers:
        h = conv(h).to(torch.float16)
        mu = h.mean(dim=(2, 3, 4), keepdim=True)
        var = (h - mu).square().mean(dim=(2, 3, 4), keepdim=True)  # want CD106
        h = torch.relu((h - mu) / torch.sqrt(var + eps))
    return h
