from dataclasses import dataclass

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


@dataclass
class LoaderConfig:
    batch_size: int = 64
    num_workers: int = 8


class GpuNoise(Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> torch.Tensor:
        arr = np.random.default_rng(i).standard_normal(128).astype("float32")
        return torch.from_numpy(arr).cuda(non_blocking=True)  # want CD103


def make_loader(cfg: LoaderConfig) -> DataLoader:
    return DataLoader(GpuNoise(10_000), batch_size=cfg.batch_size, num_workers=cfg.num_workers)
