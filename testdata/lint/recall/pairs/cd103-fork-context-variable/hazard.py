import multiprocessing

import torch


def launch(worker, n):
    torch.cuda.set_device(0)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=worker, args=(i,)) for i in range(n)]  # want CD103
    for p in procs:
        p.start()
