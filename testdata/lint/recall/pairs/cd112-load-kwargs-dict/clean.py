import torch


def restore(model, path, strict=True):
    load_kwargs = {"map_location": "cpu", "weights_only": True}
    state = torch.load(path, **load_kwargs)
    missing, unexpected = model.load_state_dict(state["model"], strict=strict)
    return missing, unexpected
