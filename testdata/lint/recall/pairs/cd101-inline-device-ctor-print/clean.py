import torch


@torch.no_grad()
def show_tokens(model, ids):
    logits = model(ids)
    picked = logits.argmax(-1).cpu()
    print("tokens:", picked)
