import torch


def partition(scores, args):
    dtype = torch.bfloat16 if args.bf16 else torch.float32
    s = scores.to(dtype)
    return torch.exp(s).sum(dim=-1)
