import torch
from torch.cuda import synchronize as sync


def decode(logits):
    ids = logits.argmax(-1).to("cpu", non_blocking=True)
    return [int(i) for i in ids.tolist()]  # want CD101
