import torch


def attention_weights(scores: torch.Tensor) -> torch.Tensor:
    w = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    w.div_(w.sum(dim=-1, keepdim=True))  # want CD109
    return w
