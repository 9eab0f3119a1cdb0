import torch


def energy(q, k):
    with torch.autocast("cuda", dtype=torch.float16):
        scores = q @ k.transpose(-2, -1)
    return scores.float().exp().sum(-1)
