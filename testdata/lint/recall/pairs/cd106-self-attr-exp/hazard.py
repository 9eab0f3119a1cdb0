import torch


class Scorer:
    def __init__(self, logits):
        self.logits16 = logits.half()

    def partition(self):
        return self.logits16.exp().sum()  # want CD106
