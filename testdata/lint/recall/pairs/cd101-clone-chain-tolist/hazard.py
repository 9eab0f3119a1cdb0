import torch


@torch.no_grad()
def greedy_tokens(model, ids):
    logits = model(ids)
    host_ids = logits.argmax(dim=-1).detach().to(device="cpu", non_blocking=True)
    tokens = host_ids.clone().tolist()  # want CD101
    return [t for t in tokens if t != 0]
