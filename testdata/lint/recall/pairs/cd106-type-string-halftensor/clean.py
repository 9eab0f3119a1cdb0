import torch


def feature_spread(feats):
    h = feats.type("torch.cuda.FloatTensor")
    return h.var(dim=0)
