import torch


def feature_spread(feats):
    h = feats.type("torch.cuda.HalfTensor")
    return h.var(dim=0)  # want CD106
