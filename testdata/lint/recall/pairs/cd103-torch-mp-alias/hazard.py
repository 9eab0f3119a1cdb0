import torch
import torch.multiprocessing as tmp


def train_workers(fn, world):
    torch.cuda.manual_seed_all(0)
    x = torch.randn(2, device="cuda")
    workers = []
    for rank in range(world):
        w = tmp.Process(target=fn, args=(rank,))  # want CD103
        w.start()
        workers.append(w)
    return x, workers
