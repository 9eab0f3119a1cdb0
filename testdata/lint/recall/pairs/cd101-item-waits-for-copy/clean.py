import torch


@torch.no_grad()
def decode_step(model, tokens, eos_id):
    logits = model(tokens)
    ids = logits[:, -1].argmax(-1)
    next_ids = ids.to("cpu", non_blocking=True)
    finished = (ids == eos_id).all().item()
    return [int(i) for i in next_ids], finished
