import torch


class Evaluator:
    def step(self, logits):
        self.staging = logits.argmax(-1).cpu(non_blocking=True)
        return self.staging.tolist()  # want CD101
