import torch as th


def load_embeddings(ckpt):
    return th.load(ckpt, map_location=th.device("cpu"))["entity"]
