import torch


@torch.no_grad()
def greedy_tokens(model, ids):
    logits = model(ids)
    host_ids = logits.argmax(dim=-1).detach().to(device="cpu", non_blocking=True)
    torch.cuda.synchronize()
    tokens = host_ids.clone().tolist()
    return [t for t in tokens if t != 0]
