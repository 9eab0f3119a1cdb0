import torch
import torch.multiprocessing as tmp


def train_workers(fn, world):
    torch.cuda.manual_seed_all(0)
    x = torch.randn(2, device="cuda")
    ctx = tmp.get_context("spawn")
    workers = []
    for rank in range(world):
        w = ctx.Process(target=fn, args=(rank,))
        w.start()
        workers.append(w)
    return x, workers
