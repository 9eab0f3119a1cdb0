import time

import torch


class Stopwatch:
    def __init__(self) -> None:
        self.began = None
        self.laps: list[float] = []

    def start(self) -> None:
        self.began = time.monotonic()

    def stop(self) -> float:
        lap = time.monotonic() - self.began
        self.laps.append(lap)
        return lap


def bench(model, batch, iters: int = 20) -> float:
    sw = Stopwatch()
    x = batch.to("cuda")
    for _ in range(iters):
        sw.start()
        model(x)
        torch.cuda.synchronize()
        sw.stop()
    return sum(sw.laps) / iters
