import torch


class Runner:
    def __init__(self, max_tokens):
        self.sampled_pinned = torch.empty(max_tokens, dtype=torch.int64, pin_memory=True)

    def to_list(self, sampled):
        pinned = self.sampled_pinned[: sampled.shape[0]]
        pinned.copy_(sampled, non_blocking=True)
        return pinned.tolist()  # want CD101
