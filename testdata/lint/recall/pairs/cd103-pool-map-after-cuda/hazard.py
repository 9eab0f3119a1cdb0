import multiprocessing as mp

import torch


def work(i):
    return torch.ones(2, device="cuda").sum().item() + i


def main():
    torch.cuda.init()
    with mp.Pool(2) as pool:  # want CD103
        print(pool.map(work, range(4)))


if __name__ == "__main__":
    main()
