from multiprocessing import Process

import torch


def main(serve):
    warm = torch.zeros(1, device="cuda")
    proc = Process(target=serve)  # want CD103
    proc.start()
    proc.join()
    return warm
