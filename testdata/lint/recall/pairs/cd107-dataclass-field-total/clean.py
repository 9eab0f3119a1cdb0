from dataclasses import dataclass

import torch


@dataclass
class EpochStats:
    loss: float = 0.0
    batches: int = 0


def train_epoch(model, loader, opt, crit):
    stats = EpochStats()
    for x, y in loader:
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        stats.loss += loss.item()
        stats.batches += 1
    return stats
