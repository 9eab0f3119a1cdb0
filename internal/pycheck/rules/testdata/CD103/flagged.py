import multiprocessing as mp
import torch
from torch.utils.data import DataLoader, Dataset


class OnGpu(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return torch.full((4,), float(i), device="cuda")  # want CD103


class Moves(torch.utils.data.Dataset):
    def __getitem__(self, i):
        return torch.ones(4).cuda()  # want CD103


def work(i):
    return torch.ones(4, device="cuda").sum().item() * i


if __name__ == "__main__":
    warm = torch.zeros(1, device="cuda")
    with mp.get_context("fork").Pool(2) as pool:  # want CD103
        print(pool.map(work, range(4)))
    loader = DataLoader(OnGpu(), batch_size=8, num_workers=2, multiprocessing_context="fork")
    moves = Moves()
    other = DataLoader(moves, num_workers=4)
    for batch in loader:
        print(batch.sum().item())


class OnDevice(Dataset):
    def __init__(self, items, device):
        self.items = items
        self.device = device

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.as_tensor(self.items[i], device=self.device)  # want CD103


def device_loader(items):
    return DataLoader(OnDevice(items, torch.device("cuda")), num_workers=2)


def pool_after_init(items):
    torch.cuda.init()
    with mp.Pool(2) as pool:  # want CD103
        return pool.map(work, items)


def make_cuda_scratch():
    return torch.zeros(1).cuda()


def pool_after_helper_made_cuda_tensor(items):
    make_cuda_scratch()
    with mp.Pool(2) as pool:  # want CD103
        return pool.map(str, items)
