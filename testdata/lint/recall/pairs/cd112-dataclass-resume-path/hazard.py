import os
from dataclasses import dataclass
from pathlib import Path

import torch


@dataclass
class ResumeConfig:
    ckpt: Path
    strict: bool = True


def resume(model: torch.nn.Module, cfg: ResumeConfig) -> int:
    state = torch.load(cfg.ckpt)  # want CD112
    model.load_state_dict(state["model"], strict=cfg.strict)
    return int(state.get("step", 0))
