import lightning as L
import torch
from torch import nn


class AutoEncoder(L.LightningModule):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.training_step_outputs = []

    def training_step(self, batch, batch_idx):
        x, _ = batch
        x = x.flatten(1)
        recon = self.decoder(self.encoder(x))
        loss = nn.functional.mse_loss(recon, x)
        self.training_step_outputs.append(loss.detach())
        return loss

    def on_train_epoch_end(self):
        epoch_mean = torch.stack(self.training_step_outputs).mean()
        self.log("training_epoch_mean", epoch_mean)
        self.training_step_outputs.clear()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
