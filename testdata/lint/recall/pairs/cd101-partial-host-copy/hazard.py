import functools

import torch

to_host = functools.partial(torch.Tensor.to, device="cpu", non_blocking=True)


def predict(model, batch):
    with torch.no_grad():
        logits = model(batch.cuda())
    probs = to_host(logits.softmax(-1))
    return probs.numpy()  # want CD101
