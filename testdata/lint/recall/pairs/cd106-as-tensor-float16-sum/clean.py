import numpy as np
import torch


def spectrum_energy(frames: np.ndarray, device="cuda"):
    x = torch.as_tensor(frames, dtype=torch.float32, device=device)
    return x.square().sum(dim=-1)
