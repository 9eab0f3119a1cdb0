import time

import torch


def train(model, loader, opt):
    end = time.time()
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        batch_time = time.time() - end  # want CD108
        end = time.time()
        print(batch_time)
