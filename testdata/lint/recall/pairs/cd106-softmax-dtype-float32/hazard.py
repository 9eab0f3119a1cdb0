import torch


def attention_probs(q, k, scale):
    scores = (q.half() @ k.half().transpose(-2, -1)) * scale
    weights = scores.exp()  # want CD106
    return weights / weights.sum(dim=-1, keepdim=True)
