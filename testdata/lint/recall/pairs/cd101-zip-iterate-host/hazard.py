import torch


def confident_labels(labels, probs, threshold=0.5):
    host = probs.cpu(non_blocking=True)
    keep = []
    for label, p in zip(labels, host):  # want CD101
        if p > threshold:
            keep.append(label)
    return keep
