import torch


class Evaluator:
    def step(self, logits):
        self.staging = logits.argmax(-1).cpu(non_blocking=True)
        torch.cuda.synchronize()
        return self.staging.tolist()
