from collections import defaultdict


def train(model, criterion, optimizer, loader):
    history = defaultdict(list)
    for images, targets in loader:
        loss_dict = criterion(model(images), targets)
        total = sum(loss_dict.values())
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        for name, value in loss_dict.items():
            history[name].append(value.item())
    return history
