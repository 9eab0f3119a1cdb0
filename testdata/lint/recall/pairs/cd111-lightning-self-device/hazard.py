import torch
import lightning as L


class Denoiser(L.LightningModule):
    def __init__(self, net, sigma):
        super().__init__()
        self.net = net
        self.sigma = sigma

    def forward(self, x):
        noise = torch.randn(x.shape) * self.sigma  # want CD111
        return self.net(x + noise)
