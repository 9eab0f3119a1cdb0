import torch


def attention_probs(q, k, scale):
    scores = (q.half() @ k.half().transpose(-2, -1)) * scale
    return torch.softmax(scores, dim=-1, dtype=torch.float32)
