from timeit import default_timer as timer

import torch


def time_forward(model, images):
    images = images.cuda(non_blocking=True)
    tic = timer()
    preds = model(images)
    torch.cuda.synchronize()
    toc = timer()
    return preds, toc - tic
