import argparse
import os

import torch
import torch.distributed as dist


def setup():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    device = torch.device("cuda:1")  # want CD113
    torch.cuda.set_device(device)
    return args, device
