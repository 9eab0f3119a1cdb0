import torch


class Runner:
    def __init__(self, model):
        self.device = torch.device("cuda:1")  # want CD113
        self.model = model.to(self.device)
