import torch
from torch import nn


def train_epoch(net: nn.Module, batches, optimiser):
    criterion = nn.CrossEntropyLoss()
    epoch_loss = torch.zeros((), device="cuda")
    for images, labels in batches:
        optimiser.zero_grad(set_to_none=True)
        loss = criterion(net(images.cuda()), labels.cuda())
        loss.backward()
        optimiser.step()
        epoch_loss = epoch_loss + loss  # want CD107
    print(f"epoch loss {epoch_loss.item():.4f}")
