import logging

import torch

log = logging.getLogger("train")


def train(model, loader, optimizer, criterion, log_every: int = 100) -> None:
    running = 0.0
    for step, (inputs, targets) in enumerate(loader, start=1):
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        running = running + loss.detach()
        if step % log_every == 0:
            log.info(f"step {step} mean loss {running / log_every:.4f}")
            running = 0.0
