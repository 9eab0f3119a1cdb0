import lightning as L
import torch
import torch.nn.functional as F


class Denoiser(L.LightningModule):
    def __init__(self, net, steps=1000):
        super().__init__()
        self.net = net
        self.steps = steps

    def training_step(self, batch, batch_idx):
        x0 = batch["image"]
        noise = torch.randn_like(x0)
        t = torch.randint(0, self.steps, (x0.shape[0],), device=self.device)
        pred = self.net(x0 + noise, t)
        return F.mse_loss(pred, noise)
