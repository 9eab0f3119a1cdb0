import multiprocessing as mp

import torch


def configure(seed):
    torch.manual_seed(seed)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = False
    torch.backends.cuda.matmul.allow_tf32 = True


def tokenize(line):
    return line.lower().split()


def main(lines):
    configure(0)
    with mp.Pool(8) as pool:
        return pool.map(tokenize, lines)
