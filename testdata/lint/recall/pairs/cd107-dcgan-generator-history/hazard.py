import torch
from torch import nn


def train_gan(netG, netD, loader, optD, optG, nz, epochs, device):
    criterion = nn.BCELoss()
    G_losses, D_losses = [], []
    for epoch in range(epochs):
        for real, _ in loader:
            real = real.to(device)
            b = real.size(0)
            netD.zero_grad()
            label = torch.full((b,), 1.0, device=device)
            errD_real = criterion(netD(real).view(-1), label)
            errD_real.backward()
            noise = torch.randn(b, nz, 1, 1, device=device)
            fake = netG(noise)
            label.fill_(0.0)
            errD_fake = criterion(netD(fake.detach()).view(-1), label)
            errD_fake.backward()
            optD.step()
            netG.zero_grad()
            label.fill_(1.0)
            errG = criterion(netD(fake).view(-1), label)
            errG.backward()
            optG.step()
            G_losses.append(errG)  # want CD107
            D_losses.append((errD_real + errD_fake).item())
    return G_losses, D_losses
