import torch
from torch import nn


class MaskTrainer:
    def __init__(self, net):
        self.net = net
        self.mask_loss = nn.BCEWithLogitsLoss()

    def train_step(self, img, mask):
        with torch.autocast(device_type="cuda"):
            pred = self.net(img)
            loss = self.mask_loss(pred, mask)
        return loss
