import time

import torch


class Bench:
    def __init__(self, model):
        self.model = model.cuda()

    def _sync(self):
        if torch.cuda.is_available():
            torch.cuda.synchronize()

    def run(self, x):
        self._sync()
        start = time.perf_counter()
        out = self.model(x.cuda())
        self._sync()
        print("fwd", time.perf_counter() - start)
        return out
