import os
from dataclasses import dataclass, field

import torch


@dataclass
class TrainConfig:
    lr: float = 3e-4
    device: str = field(default_factory=lambda: f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}")
    batch_size: int = 32


def build(cfg: TrainConfig, model):
    return model.to(torch.device(cfg.device))
