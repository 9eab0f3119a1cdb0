import torch
from torch.cuda import amp


def make_scaler():
    return amp.GradScaler()  # want CD104
