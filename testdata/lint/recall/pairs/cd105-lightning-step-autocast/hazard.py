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
            prob = torch.sigmoid(self.net(x))
            return F.binary_cross_entropy(prob, y)  # want CD105
