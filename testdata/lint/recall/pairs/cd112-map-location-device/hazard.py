import torch


def restore(model, path, device):
    state = torch.load(path)  # want CD112
    model.load_state_dict(state["model"])
    return model.to(device)
