import time

import lightning as L


class BatchTimer(L.Callback):
    def __init__(self) -> None:
        self._start = 0.0
        self.times: list[float] = []

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        self._start = time.perf_counter()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        elapsed = time.perf_counter() - self._start  # want CD108
        self.times.append(elapsed)
        pl_module.log("batch_time", elapsed)
