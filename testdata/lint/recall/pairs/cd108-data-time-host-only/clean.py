import time

import torch


def train(model, loader, opt):
    end = time.time()
    for x, y in loader:
        data_time = time.time() - end
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        batch_time = time.time() - end
        end = time.time()
        print(data_time, batch_time)
