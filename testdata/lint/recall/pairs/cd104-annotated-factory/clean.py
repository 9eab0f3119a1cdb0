from typing import Optional

import torch


def make_scaler(enabled: bool, init_scale: Optional[float] = None) -> torch.amp.GradScaler:
    kwargs = {} if init_scale is None else {"init_scale": init_scale}
    return torch.amp.GradScaler("cuda", enabled=enabled, **kwargs)
