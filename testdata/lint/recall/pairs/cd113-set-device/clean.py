import os

import torch


def init():
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
    return torch.cuda.current_device()
