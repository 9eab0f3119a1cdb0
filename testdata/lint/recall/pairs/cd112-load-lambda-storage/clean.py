import torch


def load_pretrained(model, path):
    with open(path, "rb") as fh:
        state = torch.load(fh, map_location=lambda storage, loc: storage)
    model.load_state_dict(state)
