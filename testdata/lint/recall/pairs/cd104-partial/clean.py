import contextlib
import functools

import torch


def get_autocast(precision):
    if precision == "amp":
        return functools.partial(torch.autocast, device_type="cuda", dtype=torch.bfloat16)
    return contextlib.suppress
