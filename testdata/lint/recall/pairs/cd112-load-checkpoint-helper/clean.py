import torch


def resume(model, path, local_rank=0):
    device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")
    state = torch.load(path, map_location=device)
    model.load_state_dict(state["model"])
    return state["epoch"]
