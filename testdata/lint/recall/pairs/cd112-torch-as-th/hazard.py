import torch as th


def load_embeddings(ckpt):
    return th.load(ckpt)["entity"]  # want CD112
