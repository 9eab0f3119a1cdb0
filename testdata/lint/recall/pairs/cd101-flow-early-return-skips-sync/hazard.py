import numpy as np
import torch


def decode(logits, greedy=True):
    ids = logits.argmax(-1).to("cpu", non_blocking=True)
    if greedy:
        return np.asarray(ids)  # want CD101
    torch.cuda.synchronize()
    return ids.numpy()[::-1]
