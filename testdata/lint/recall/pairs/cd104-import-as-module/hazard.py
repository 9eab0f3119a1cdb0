import torch
import torch.cuda.amp as cuda_amp


def forward_amp(model, x):
    with cuda_amp.autocast():  # want CD104
        return model(x)
