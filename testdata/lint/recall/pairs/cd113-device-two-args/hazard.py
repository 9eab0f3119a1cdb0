import torch


def second_gpu(t):
    return t.to(torch.device("cuda", 1))  # want CD113
