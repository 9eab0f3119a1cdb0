import torch


def place(model: torch.nn.Module) -> torch.nn.Module:
    dev = torch.device(type="cuda", index=2)  # want CD113
    return model.to(dev)
