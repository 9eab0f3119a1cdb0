import torch
import lightning as L


class Denoiser(L.LightningModule):
    def __init__(self, net, sigma):
        super().__init__()
        self.net = net
        self.sigma = sigma

    def forward(self, x):
        noise = torch.randn(x.shape, device=self.device) * self.sigma
        return self.net(x + noise)
