import torch


class ActivationCache:
    def __init__(self):
        self.saved = {}

    def add(self, name, value, device="cpu"):
        self.saved[name] = value.detach().to(device)

    def summary(self):
        return {k: v.abs().max().item() for k, v in self.saved.items()}
