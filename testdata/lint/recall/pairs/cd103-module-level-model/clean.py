import multiprocessing as mp

import torch

model = torch.nn.Linear(8, 2)


def handle(requests):
    with mp.Pool(2) as pool:
        return pool.map(len, requests)
