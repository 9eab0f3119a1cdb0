import torch
from torch.utils import data


class Clips(data.Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        frames = load_frames(self.paths[idx])
        return torch.as_tensor(frames, device="cuda")  # want CD103


def loader(paths, cfg):
    ds = Clips(paths)
    return data.DataLoader(ds, batch_size=cfg.bs, num_workers=cfg.workers)


def load_frames(p):
    return [[0.0]]
