import torch


def token_mass(attn):
    probs = attn.half()
    return probs.sum(dim=-1)  # want CD106
