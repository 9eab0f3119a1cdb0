import multiprocessing as mp

import torch


def run(model, items):
    model = model.cuda()
    with mp.get_context("spawn").Pool(4) as pool:
        return pool.map(str, items)
