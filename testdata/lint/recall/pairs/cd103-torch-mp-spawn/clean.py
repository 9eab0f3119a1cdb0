import torch
import torch.multiprocessing as mp


def worker(rank, queue):
    queue.put(rank)


def main():
    model = torch.nn.Linear(8, 8).cuda()
    queue = mp.get_context("spawn").SimpleQueue()
    mp.spawn(worker, args=(queue,), nprocs=2)
    return model


if __name__ == "__main__":
    main()
