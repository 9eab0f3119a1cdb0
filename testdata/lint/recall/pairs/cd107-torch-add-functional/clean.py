import torch


def epoch(model, loader, optimizer):
    total = torch.zeros((), device="cuda")
    for batch in loader:
        optimizer.zero_grad()
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        total = torch.add(total, loss.detach())
    return total / len(loader)
