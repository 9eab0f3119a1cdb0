import torch as th
from torch import cuda


def gather_predictions(logits):
    host = logits.argmax(-1).to("cpu", non_blocking=True)
    cuda.synchronize()
    return host.tolist()
