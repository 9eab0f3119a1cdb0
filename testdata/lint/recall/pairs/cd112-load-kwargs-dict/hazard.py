import torch


def restore(model, path, strict=True):
    state = torch.load(path, weights_only=True)  # want CD112
    missing, unexpected = model.load_state_dict(state["model"], strict=strict)
    return missing, unexpected
