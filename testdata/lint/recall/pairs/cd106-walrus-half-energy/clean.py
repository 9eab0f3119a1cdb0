import torch


def spectral_energy(feats):
    if (h16 := feats.to(torch.bfloat16)).numel() > 0:
        return h16.pow(2).sum()
    return None
