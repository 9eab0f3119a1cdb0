import torch


def run(model, data, optimizer, criterion):
    epoch_loss = 0
    for batch in data:
        out = model(batch["x"])
        loss = criterion(out, batch["y"])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        epoch_loss = epoch_loss + loss  # want CD107
    return epoch_loss
