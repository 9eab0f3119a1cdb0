import torch


def growth_factor(rates):
    r = torch.tensor(rates, dtype=torch.float32).cuda()
    return (1 + r).prod()
