import torch


def attention_weights(scores):
    s = scores.to(torch.float16)
    w = torch.exp(s)  # want CD106
    return w / w.sum()
