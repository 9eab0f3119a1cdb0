import logging
import time

import torch

logger = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, optimizer) -> None:
        self.model = model
        self.optimizer = optimizer

    def _step(self, batch: torch.Tensor) -> None:
        loss = self.model(batch.cuda()).mean()
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()

    def run(self, batches) -> None:
        for i, batch in enumerate(batches):
            t0 = time.perf_counter()
            self._step(batch)
            torch.cuda.synchronize()
            logger.info(f"step {i} took {time.perf_counter() - t0:.4f}s")
