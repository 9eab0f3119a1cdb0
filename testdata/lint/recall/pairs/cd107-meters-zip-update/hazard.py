import torch


class AverageMeter:
    def __init__(self):
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train_epoch(net, loader, optimizer, device):
    meters = [AverageMeter(), AverageMeter()]
    for partial, gt in loader:
        partial, gt = partial.to(device), gt.to(device)
        coarse, fine = net(partial)
        coarse_loss = torch.mean((coarse - gt) ** 2)
        fine_loss = torch.mean((fine - gt) ** 2)
        loss = coarse_loss + fine_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        for meter, value in zip(meters, (coarse_loss, fine_loss)):
            meter.update(value, partial.size(0))  # want CD107
    return [m.avg for m in meters]
