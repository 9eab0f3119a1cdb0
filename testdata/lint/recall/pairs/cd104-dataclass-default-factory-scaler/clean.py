from dataclasses import dataclass, field

import torch


@dataclass
class AmpState:
    enabled: bool = True
    scaler: torch.amp.GradScaler = field(default_factory=lambda: torch.amp.GradScaler("cuda"))
