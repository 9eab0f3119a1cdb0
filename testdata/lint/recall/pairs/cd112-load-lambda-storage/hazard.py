import torch


def load_pretrained(model, path):
    with open(path, "rb") as fh:
        state = torch.load(fh)  # want CD112
    model.load_state_dict(state)
