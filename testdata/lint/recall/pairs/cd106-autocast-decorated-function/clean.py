import torch


@torch.no_grad()
@torch.autocast(device_type="cuda")
def feature_energy(x):
    return x.half().pow(2).sum()
