import torch
import torch.nn.functional as F


def train_vae(model, optimizer, loader):
    recon_total, kl_total = 0.0, 0.0
    for x in loader:
        optimizer.zero_grad()
        x_hat, mu, logvar = model(x)
        recon = F.binary_cross_entropy(x_hat, x, reduction="sum")
        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        (recon + kl).backward()
        optimizer.step()
        recon_total += recon  # want CD107
        kl_total += kl.item()
    return recon_total, kl_total
