import torch
from torch import nn


def train_epoch(accelerator, model, loader, optimizer):
    criterion = nn.BCELoss()
    model.train()
    for batch in loader:
        with accelerator.autocast():
            probs = torch.sigmoid(model(batch["x"]))
            loss = criterion(probs, batch["y"])  # want CD105
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
