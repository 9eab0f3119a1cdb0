import os

import attrs
import torch


@attrs.frozen
class RunSettings:
    device: str = attrs.field(factory=lambda: f"cuda:{os.environ.get('LOCAL_RANK', '0')}")
    batch_size: int = 32


def place(model: torch.nn.Module, settings: RunSettings) -> torch.nn.Module:
    return model.to(settings.device)
