import torch
from torch import nn


class MaskTrainer:
    def __init__(self, net):
        self.net = net
        self.mask_loss = nn.BCELoss()

    def train_step(self, img, mask):
        with torch.autocast(device_type="cuda"):
            pred = torch.sigmoid(self.net(img))
            loss = self.mask_loss(pred, mask)  # want CD105
        return loss
