import numpy as np
import torch

copy_stream = torch.cuda.Stream()


def offload(activations):
    with torch.cuda.stream(copy_stream):
        host = activations.detach().to("cpu", non_blocking=True)
    return np.asarray(host)  # want CD101
