import numpy as np
import torch


def decode(logits, greedy=True):
    ids = logits.argmax(-1).to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    if greedy:
        return np.asarray(ids)
    return ids.numpy()[::-1]
