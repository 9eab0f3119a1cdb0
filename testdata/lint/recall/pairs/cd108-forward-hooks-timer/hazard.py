import time

import torch


class ForwardTimer:
    def __init__(self, module: torch.nn.Module) -> None:
        self.began = 0.0
        self.seconds: list[float] = []
        module.register_forward_pre_hook(self.before)
        module.register_forward_hook(self.after)

    def before(self, module, args) -> None:
        self.began = time.perf_counter()

    def after(self, module, args, output) -> None:
        self.seconds.append(time.perf_counter() - self.began)  # want CD108


def profile(model: torch.nn.Module, x: torch.Tensor) -> float:
    timer = ForwardTimer(model.cuda())
    model(x.cuda())
    return timer.seconds[-1]
