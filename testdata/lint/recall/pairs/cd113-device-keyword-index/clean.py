import os

import torch


def place(model: torch.nn.Module) -> torch.nn.Module:
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    dev = torch.device(type="cuda", index=local_rank)
    return model.to(dev)
