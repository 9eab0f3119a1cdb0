import multiprocessing as mp
import torch
from torch.utils.data import DataLoader, Dataset
from multiprocessing.pool import ThreadPool


class OnCpu(Dataset):
    def __getitem__(self, i):
        return torch.full((4,), float(i))


class OnGpu(Dataset):
    def __getitem__(self, i):
        return torch.full((4,), float(i), device="cuda")


def work(i):
    return torch.ones(4, device="cuda").sum().item() * i


def spawn_pool():
    torch.zeros(1, device="cuda")
    with mp.get_context("spawn").Pool(2) as pool:
        return pool.map(work, range(4))


def pool_before_cuda():
    with mp.get_context("fork").Pool(2) as pool:
        out = pool.map(abs, range(4))
    torch.zeros(1, device="cuda")
    return out


def threads():
    torch.zeros(1, device="cuda")
    with ThreadPool(2) as pool:
        return pool.map(work, range(4))


if __name__ == "__main__":
    # Main-process loading, and spawn workers: both safe.
    a = DataLoader(OnGpu(), num_workers=0)
    b = DataLoader(OnGpu(), num_workers=2, multiprocessing_context="spawn")
    c = DataLoader(OnCpu(), num_workers=4, pin_memory=True)


def no_cuda_init(config_cls):
    _ = config_cls(precision="16-mixed", device="cuda")
    with mp.get_context("fork").Pool(1) as pool:
        return pool.apply(abs, (1,))


class OnDevice(Dataset):
    def __init__(self, items, device):
        self.items = items
        self.device = device

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.as_tensor(self.items[i], device=self.device)


def device_loader(items):
    return DataLoader(OnDevice(items, "cpu"), num_workers=2)


def pool_after_availability_check(items):
    # is_available() and device_count() do not create a CUDA context.
    if torch.cuda.is_available() and torch.cuda.device_count() > 1:
        with mp.get_context("fork").Pool(2) as pool:
            return pool.map(abs, items)
    return [abs(i) for i in items]


def set_cudnn_flags():
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = False


def pool_after_flag_setup(items):
    set_cudnn_flags()
    with mp.Pool(2) as pool:
        return pool.map(str, items)
