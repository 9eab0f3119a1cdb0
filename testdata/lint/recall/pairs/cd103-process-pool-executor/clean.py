import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import torch


def score_all(model, shards, fn):
    model.to("cuda")
    with ProcessPoolExecutor(max_workers=8, mp_context=multiprocessing.get_context("spawn")) as ex:
        return list(ex.map(fn, shards))
