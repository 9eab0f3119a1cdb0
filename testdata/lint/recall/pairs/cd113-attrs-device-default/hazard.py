import attrs
import torch


@attrs.frozen
class RunSettings:
    device: str = "cuda:2"  # want CD113
    batch_size: int = 32


def place(model: torch.nn.Module, settings: RunSettings) -> torch.nn.Module:
    return model.to(settings.device)
