from timeit import default_timer as timer

import torch


def time_forward(model, images):
    images = images.cuda(non_blocking=True)
    tic = timer()
    preds = model(images)
    toc = timer()  # want CD108
    return preds, toc - tic
