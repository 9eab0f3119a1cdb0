import torch
from accelerate import Accelerator


def train(model, loader, opt):
    accelerator = Accelerator()
    model, opt, loader = accelerator.prepare(model, opt, loader)
    running = 0.0
    for batch in loader:
        loss = model(**batch).loss
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        running += loss  # want CD107
    return running / len(loader)
