import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.proj = nn.Linear(d, k)

    @staticmethod
    def to_host(t):
        return t.to("cpu", non_blocking=True)

    def tags(self, x):
        ids = self.to_host(self.proj(x).argmax(-1))
        return ids.tolist()  # want CD101
