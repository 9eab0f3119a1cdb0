import multiprocessing as mp

import torch


def run(model, items):
    model = model.cuda()
    with mp.Pool(4) as pool:  # want CD103
        return pool.map(str, items)
