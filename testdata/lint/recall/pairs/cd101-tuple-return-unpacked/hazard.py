import torch


def to_host(boxes, scores):
    return boxes.to("cpu", non_blocking=True), scores.to("cpu", non_blocking=True)


def postprocess(detector, images, threshold):
    boxes, scores = to_host(*detector(images.cuda()))
    keep = scores > threshold  # want CD101
    return boxes[keep]
