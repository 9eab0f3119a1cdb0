import torch

ASYNC_COPY = True


def predictions(model, x):
    scores = model(x.cuda())
    host = scores.to("cpu", non_blocking=ASYNC_COPY)
    return host.numpy().argmax(axis=1)  # want CD101
