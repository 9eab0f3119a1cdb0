import os

import torch


class Runner:
    def __init__(self, model):
        local_rank = int(os.environ.get("LOCAL_RANK", 0))
        self.device = torch.device("cuda", local_rank)
        self.model = model.to(self.device)
