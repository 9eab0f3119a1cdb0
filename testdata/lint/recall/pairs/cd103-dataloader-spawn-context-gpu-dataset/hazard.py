import torch
from torch.utils.data import DataLoader, Dataset


class Samples(Dataset):
    def __init__(self, data):
        self.data = data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i].cuda()  # want CD103


def make_loader(data):
    return DataLoader(Samples(data), batch_size=16, num_workers=4)
