import torch


def normaliser(head, feats):
    with torch.autocast("cuda"):
        logits = head(feats)
    return logits.exp().sum(dim=-1)  # want CD106
