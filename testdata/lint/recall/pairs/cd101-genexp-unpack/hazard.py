import torch


def boxes_and_scores(boxes, scores):
    b, s = (t.to("cpu", non_blocking=True) for t in (boxes, scores))
    keep = s.tolist()  # want CD101
    return b, keep
