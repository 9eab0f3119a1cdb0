import os
from dataclasses import dataclass
from pathlib import Path

import torch


@dataclass
class ResumeConfig:
    ckpt: Path
    strict: bool = True


def resume(model: torch.nn.Module, cfg: ResumeConfig) -> int:
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    map_location = f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu"
    state = torch.load(cfg.ckpt, map_location=map_location)
    model.load_state_dict(state["model"], strict=cfg.strict)
    return int(state.get("step", 0))
