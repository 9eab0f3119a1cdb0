import torch

from .cuda_utils import current_device, wait_for_gpu


def upload_all(chunks):
    buf = torch.empty(chunks[0].shape).pin_memory()
    outs = []
    for c in chunks:
        wait_for_gpu()
        buf.copy_(c)
        outs.append(buf.to(current_device(), non_blocking=True))
    return outs
