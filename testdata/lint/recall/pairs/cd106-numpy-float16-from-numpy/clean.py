import numpy as np
import torch


def total_intensity(image: np.ndarray) -> torch.Tensor:
    pixels = torch.from_numpy(image.astype(np.float32)).cuda()
    return pixels.sum()
