import torch


def train(model, loader, opt, crit):
    stats = {}
    for x, y in loader:
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        stats["loss"] = stats.get("loss", 0.0) + loss.item()
    return stats
