import torch


def load_generator(builder, path):
    return builder(path).half().cuda()
