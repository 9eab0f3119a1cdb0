import torch


def run(model, loader, opt):
    hist = torch.empty(0, device="cuda")
    for batch in loader:
        loss = model(batch).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist = torch.cat([hist, loss.view(1)])  # want CD107
    return hist
