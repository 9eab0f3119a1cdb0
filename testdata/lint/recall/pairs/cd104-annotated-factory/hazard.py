from typing import Optional

import torch


def make_scaler(enabled: bool, init_scale: Optional[float] = None):
    kwargs = {} if init_scale is None else {"init_scale": init_scale}
    return torch.cuda.amp.GradScaler(enabled=enabled, **kwargs)  # want CD104
