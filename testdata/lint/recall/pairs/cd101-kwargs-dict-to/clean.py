import torch

HOST_COPY = dict(device="cpu", non_blocking=False)


def boxes_to_list(boxes):
    b = boxes.to(**HOST_COPY)
    return b.tolist()
