import torch


def detections(pred):
    if (host := pred.to("cpu", non_blocking=True)).numel():
        return host.tolist()  # want CD101
    return []
