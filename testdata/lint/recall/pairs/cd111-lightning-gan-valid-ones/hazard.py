import lightning as L
import torch
import torch.nn.functional as F


class GAN(L.LightningModule):
    def __init__(self, generator, discriminator, latent_dim=100):
        super().__init__()
        self.automatic_optimization = False
        self.generator = generator
        self.discriminator = discriminator
        self.latent_dim = latent_dim

    def training_step(self, batch):
        imgs, _ = batch
        opt_g, opt_d = self.optimizers()
        z = torch.randn(imgs.shape[0], self.latent_dim).type_as(imgs)
        self.toggle_optimizer(opt_g)
        valid = torch.ones(imgs.size(0), 1)  # want CD111
        g_loss = F.binary_cross_entropy(self.discriminator(self.generator(z)), valid)
        self.manual_backward(g_loss)
        opt_g.step()
        opt_g.zero_grad()
        self.untoggle_optimizer(opt_g)
        self.log("g_loss", g_loss, prog_bar=True)

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=2e-4)
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4)
        return [opt_g, opt_d]
