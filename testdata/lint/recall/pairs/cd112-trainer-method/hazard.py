import os

import torch


class Trainer:
    def __init__(self, model, out_dir):
        self.model, self.out_dir = model, out_dir

    def resume(self):
        ckpt = torch.load(os.path.join(self.out_dir, "last.pt"))  # want CD112
        self.model.load_state_dict(ckpt["model"])
        return ckpt["epoch"]
