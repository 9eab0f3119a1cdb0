import functools

import torch


def load_shards(paths):
    load = functools.partial(torch.load, map_location="cpu", weights_only=True)
    state = {}
    for p in paths:
        state.update(load(p))
    return state
