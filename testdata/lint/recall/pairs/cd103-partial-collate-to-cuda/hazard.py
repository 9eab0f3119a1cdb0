from functools import partial

import torch
from torch.utils.data import DataLoader


def collate_to(samples, device):
    xs = torch.stack([s[0] for s in samples])
    ys = torch.tensor([s[1] for s in samples])
    return xs.to(device), ys.to(device)  # want CD103


def make_loader(dataset, batch_size: int = 64) -> DataLoader:
    collate = partial(collate_to, device=torch.device("cuda"))
    return DataLoader(dataset, batch_size=batch_size, num_workers=4, collate_fn=collate)
