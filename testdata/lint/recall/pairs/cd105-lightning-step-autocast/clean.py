import torch
import torch.nn.functional as F
import lightning as L


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        with torch.autocast("cuda"):
            logits = self.net(x)
            loss = F.binary_cross_entropy_with_logits(logits, y)
        self.log("train/prob_mean", torch.sigmoid(logits).mean().detach())
        return loss
