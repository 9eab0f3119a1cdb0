import contextlib

import torch


def train_step(model, batch, optimizer, use_amp: bool):
    amp_ctx = torch.autocast("cuda", dtype=torch.float16) if use_amp else contextlib.nullcontext()
    with amp_ctx:
        loss = model(**batch).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()
