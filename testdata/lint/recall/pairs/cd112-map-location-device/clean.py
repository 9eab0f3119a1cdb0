import torch


def restore(model, path, device):
    state = torch.load(path, map_location=device, weights_only=True)
    model.load_state_dict(state["model"])
    return model.to(device)
