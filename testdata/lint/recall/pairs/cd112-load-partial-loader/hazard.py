import torch


class Predictor:
    def __init__(self, path):
        self.model = torch.load(path, weights_only=False)  # want CD112
