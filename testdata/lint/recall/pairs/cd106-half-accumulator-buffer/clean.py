import torch


def histogram_counts(values, bins):
    counts = torch.zeros(bins, dtype=torch.float32, device=values.device)
    counts.index_add_(0, values.long().clamp(0, bins - 1), torch.ones_like(values, dtype=torch.float32))
    return counts.cumsum(0)
