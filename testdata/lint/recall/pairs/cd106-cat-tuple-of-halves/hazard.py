import torch


def joint_norm(a, b):
    both = torch.cat((a.half(), b.half()), dim=0)
    return both.norm()  # want CD106
