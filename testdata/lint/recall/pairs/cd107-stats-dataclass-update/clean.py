from dataclasses import dataclass, field

import torch


@dataclass
class EpochStats:
    total: list = field(default_factory=list)

    def update(self, value) -> None:
        self.total.append(value)

    def mean(self) -> float:
        return float(torch.stack(self.total).mean())


def train_epoch(model, loader, optimizer) -> float:
    stats = EpochStats()
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        stats.update(loss.detach())
    return stats.mean()
