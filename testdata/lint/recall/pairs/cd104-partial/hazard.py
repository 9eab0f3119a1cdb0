import contextlib
import functools

import torch


def get_autocast(precision):
    if precision == "amp":
        return functools.partial(torch.cuda.amp.autocast, dtype=torch.bfloat16)  # want CD104
    return contextlib.suppress
