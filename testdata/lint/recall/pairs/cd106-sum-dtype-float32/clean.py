import torch


def token_mass(attn):
    probs = attn.half()
    return probs.sum(dim=-1, dtype=torch.float32)
