import torch
import torch.nn.functional as F
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, alpha=(0.25, 0.75)):
        super().__init__()
        self.gamma = gamma
        self.alpha = list(alpha)

    def forward(self, logits, target):
        logpt = F.log_softmax(logits, dim=1).gather(1, target.view(-1, 1)).view(-1)
        pt = logpt.exp()
        at = torch.tensor(self.alpha, device=logits.device).gather(0, target.view(-1))
        loss = -at * (1 - pt) ** self.gamma * logpt
        return loss.mean()
