import multiprocessing as mp

import torch

model = torch.nn.Linear(8, 2).cuda()


def handle(requests):
    with mp.Pool(2) as pool:  # want CD103
        return pool.map(len, requests)
