import time

import torch


@torch.no_grad()
def timed_eval(model, loader, max_batches: int):
    start = time.time()
    seen = 0
    correct = 0
    for i, (x, y) in enumerate(loader):
        if i == max_batches:
            break
        preds = model(x.cuda()).argmax(1)
        correct += (preds == y.cuda()).sum().item()
        seen += y.numel()
    elapsed = time.time() - start
    return seen / elapsed, correct / max(seen, 1)
