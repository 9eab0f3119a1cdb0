import torch


class AverageMeter:
    def __init__(self) -> None:
        self.sum = 0.0
        self.count = 0

    def update(self, val, n: int = 1) -> None:
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train(model, loader, optimizer, criterion) -> float:
    meter = AverageMeter()
    for images, target in loader:
        loss = criterion(model(images.cuda()), target.cuda())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        meter.update(loss, images.size(0))  # want CD107
    return float(meter.avg)
