import torch


def partition_function(scores: torch.Tensor, chunk: int = 4096) -> torch.Tensor:
    chunks = [c.to(torch.float16) for c in scores.split(chunk)]
    z = torch.zeros((), device=scores.device)
    for c in chunks:
        z = z + c.float().exp().sum()
    return z
