import torch


def boxes_and_scores(boxes, scores):
    b, s = (t.to("cpu", non_blocking=True) for t in (boxes, scores))
    torch.cuda.synchronize()
    keep = s.tolist()
    return b, keep
