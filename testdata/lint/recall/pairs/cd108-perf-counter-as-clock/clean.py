from time import perf_counter as clock

import torch


def measure(net, batch):
    batch = batch.to("cuda")
    start = clock()
    net(batch)
    torch.cuda.synchronize()
    return clock() - start
