import torch
import torch.amp as amp


def forward_amp(model, x):
    with amp.autocast("cuda"):
        return model(x)
