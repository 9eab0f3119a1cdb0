import torch
from torch.utils.data import DataLoader, Dataset


class TokenDataset(Dataset):
    def __init__(self, ids, device):
        self.ids = ids
        self.device = device

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return torch.as_tensor(self.ids[i])


def make_loader(ids):
    torch.cuda.init()
    ds = TokenDataset(ids, torch.device("cuda"))
    return DataLoader(ds, batch_size=32, num_workers=4, pin_memory=True, pin_memory_device="cuda")
