import multiprocessing as mp

import torch


def configure(seed):
    torch.manual_seed(seed)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = False
    return torch.zeros(1).cuda()


def tokenize(line):
    return line.lower().split()


def main(lines):
    configure(0)
    with mp.Pool(8) as pool:  # want CD103
        return pool.map(tokenize, lines)
