import torch


def load_generator(builder, path):
    return builder(path).half().cuda(1)  # want CD113
