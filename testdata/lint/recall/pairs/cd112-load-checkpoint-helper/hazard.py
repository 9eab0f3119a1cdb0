import torch


def resume(model, path):
    state = torch.load(path)  # want CD112
    model.load_state_dict(state["model"])
    return state["epoch"]
