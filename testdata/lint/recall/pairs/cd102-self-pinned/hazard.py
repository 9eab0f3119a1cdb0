import torch


class Prefetcher:
    def __init__(self, shape, device):
        self.pinned = torch.zeros(shape, pin_memory=True)
        self.device = device

    def push(self, batch):
        self.pinned[: len(batch)] = batch
        out = self.pinned.to(self.device, non_blocking=True)
        self.pinned.zero_()  # want CD102
        return out
