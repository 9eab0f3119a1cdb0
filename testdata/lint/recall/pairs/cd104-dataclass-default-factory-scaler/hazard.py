from dataclasses import dataclass, field

import torch


@dataclass
class AmpState:
    enabled: bool = True
    scaler: torch.cuda.amp.GradScaler = field(default_factory=torch.cuda.amp.GradScaler)  # want CD104
