import torch
from accelerate import Accelerator


def train(model, loader, opt):
    accelerator = Accelerator()
    model, opt, loader = accelerator.prepare(model, opt, loader)
    running = torch.zeros((), device=accelerator.device)
    for batch in loader:
        loss = model(**batch).loss
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        running += loss.detach()
    return running.item() / len(loader)
