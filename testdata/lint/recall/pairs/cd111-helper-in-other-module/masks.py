import torch


def lookahead_mask(size):
    return torch.triu(torch.ones(size, size), diagonal=1).bool()


def lookahead_mask_on(size, device):
    return torch.ones(size, size, device=device).triu(1).bool()
