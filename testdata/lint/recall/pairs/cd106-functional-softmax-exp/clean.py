import torch


def attention_weights(scores):
    s = scores.to(torch.float16)
    return torch.softmax(s.float(), dim=-1)
