import torch
import torch.multiprocessing as mp


def worker(rank, queue):
    queue.put(rank)


def main():
    model = torch.nn.Linear(8, 8).cuda()
    queue = mp.SimpleQueue()
    procs = [mp.Process(target=worker, args=(r, queue)) for r in range(2)]  # want CD103
    for p in procs:
        p.start()
    return model


if __name__ == "__main__":
    main()
