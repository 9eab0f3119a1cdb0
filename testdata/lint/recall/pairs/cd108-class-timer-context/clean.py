import time

import torch


class Timer:
    def __init__(self) -> None:
        self.elapsed = 0.0

    def __enter__(self) -> "Timer":
        torch.cuda.synchronize()
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        torch.cuda.synchronize()
        self.elapsed = time.perf_counter() - self._t0


@torch.no_grad()
def measure(model, images) -> float:
    timer = Timer()
    with timer:
        model(images.cuda())
    return timer.elapsed
