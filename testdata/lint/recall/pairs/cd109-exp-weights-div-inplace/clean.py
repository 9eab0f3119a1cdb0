import torch


def attention_weights(scores: torch.Tensor) -> torch.Tensor:
    w = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    w = w / w.sum(dim=-1, keepdim=True)
    return w
