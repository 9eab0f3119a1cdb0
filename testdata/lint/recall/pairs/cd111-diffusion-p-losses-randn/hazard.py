import torch
import torch.nn.functional as F
from torch import nn


class GaussianDiffusion(nn.Module):
    def __init__(self, model, timesteps=1000):
        super().__init__()
        self.model = model
        self.num_timesteps = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("sqrt_ac", alphas_cumprod.sqrt())
        self.register_buffer("sqrt_1m_ac", (1.0 - alphas_cumprod).sqrt())

    def q_sample(self, x_start, t, noise):
        a = self.sqrt_ac[t].view(-1, 1, 1, 1)
        b = self.sqrt_1m_ac[t].view(-1, 1, 1, 1)
        return a * x_start + b * noise

    def p_losses(self, x_start, t):
        noise = torch.randn(x_start.shape)  # want CD111
        x = self.q_sample(x_start, t, noise)
        return F.mse_loss(self.model(x, t), noise)

    def forward(self, img):
        t = torch.randint(0, self.num_timesteps, (img.shape[0],), device=img.device).long()
        return self.p_losses(img, t)
