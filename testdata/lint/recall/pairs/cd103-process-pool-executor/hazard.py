from concurrent.futures import ProcessPoolExecutor

import torch


def score_all(model, shards, fn):
    model.to("cuda")
    with ProcessPoolExecutor(max_workers=8) as ex:  # want CD103
        return list(ex.map(fn, shards))
