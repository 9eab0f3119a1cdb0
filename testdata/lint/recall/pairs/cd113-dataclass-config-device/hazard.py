import os
from dataclasses import dataclass, field

import torch


@dataclass
class TrainConfig:
    lr: float = 3e-4
    device: str = "cuda:1"  # want CD113
    batch_size: int = 32


def build(cfg: TrainConfig, model):
    return model.to(torch.device(cfg.device))
