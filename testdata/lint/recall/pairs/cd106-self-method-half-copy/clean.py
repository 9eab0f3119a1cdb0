import torch


class FeatureCache:
    def __init__(self):
        self.bank = []

    def _compact(self, x):
        return x.detach().to(dtype=torch.float16)

    def add(self, feats):
        self.bank.append(self._compact(feats))

    def total_energy(self, feats):
        packed = self._compact(feats)
        return packed.float().square().sum()
