import torch
from torch.utils.data import DataLoader, Dataset


class Samples(Dataset):
    def __init__(self, data):
        self.data = data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i]


def make_loader(data):
    return DataLoader(Samples(data), batch_size=16, num_workers=4, pin_memory=True)


def batches_on_gpu(loader):
    for batch in loader:
        yield batch.cuda(non_blocking=True)
