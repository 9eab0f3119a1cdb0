import torch


def to_host(boxes, scores):
    return boxes.to("cpu", non_blocking=True), scores.to("cpu", non_blocking=True)


def postprocess(detector, images, threshold):
    boxes, scores = to_host(*detector(images.cuda()))
    torch.cuda.synchronize()
    keep = scores > threshold
    return boxes[keep]
