import torch


def confident_labels(labels, probs, threshold=0.5):
    host = probs.cpu(non_blocking=True)
    torch.cuda.synchronize()
    keep = []
    for label, p in zip(labels, host):
        if p > threshold:
            keep.append(label)
    return keep
