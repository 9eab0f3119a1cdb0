import torch
from torch import amp


def make_scaler():
    return amp.GradScaler("cuda")
