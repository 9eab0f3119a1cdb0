import torch


def fit(net, data, optimizer, criterion):
    epoch_loss = 0
    for inputs, targets in data:
        optimizer.zero_grad()
        loss = criterion(net(inputs), targets)
        loss.backward()
        optimizer.step()
        epoch_loss = epoch_loss + loss  # want CD107
    return epoch_loss / len(data)
