import torch


def best_candidate(scores):
    host = scores.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    best = max(host)
    return float(best)
