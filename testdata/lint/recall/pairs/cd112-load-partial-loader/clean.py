import functools

import torch

load_on_cpu = functools.partial(torch.load, map_location="cpu")


class Predictor:
    def __init__(self, path):
        self.model = load_on_cpu(path, weights_only=False)
