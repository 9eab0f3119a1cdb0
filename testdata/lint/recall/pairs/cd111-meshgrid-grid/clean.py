import torch
from torch import nn


class GridDecoder(nn.Module):
    def __init__(self, stride):
        super().__init__()
        self.stride = stride

    def forward(self, pred):
        b, h, w, _ = pred.shape
        dev = pred.device
        ys, xs = torch.meshgrid(torch.arange(h, device=dev), torch.arange(w, device=dev), indexing="ij")
        grid = torch.stack((xs, ys), dim=-1).float()
        xy = (pred[..., :2].sigmoid() + grid) * self.stride
        return torch.cat((xy, pred[..., 2:]), dim=-1)
