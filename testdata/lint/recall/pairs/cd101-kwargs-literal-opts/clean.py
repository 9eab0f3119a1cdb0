import torch

HOST_COPY = {"device": "cpu", "non_blocking": False}


def decode(logits):
    ids = logits.argmax(-1).to(**HOST_COPY)
    return ids.tolist()
