import torch


@torch.no_grad()
def show_tokens(model, ids):
    logits = model(ids)
    picked = logits.argmax(-1).to(torch.device("cpu"), non_blocking=True)
    print("tokens:", picked)  # want CD101
