import torch


def best_candidate(scores):
    host = scores.to("cpu", non_blocking=True)
    best = max(host)  # want CD101
    return float(best)
