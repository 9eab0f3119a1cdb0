import torch
from torch import nn


def train_epoch(accelerator, model, loader, optimizer):
    criterion = nn.BCEWithLogitsLoss()
    model.train()
    for batch in loader:
        with accelerator.autocast():
            logits = model(batch["x"])
            loss = criterion(logits, batch["y"])
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
