import numpy as np
import torch


def to_host(t):
    return t.detach().cpu(non_blocking=True)


def save_embeddings(model, batch, path):
    emb = to_host(model(batch))
    np.save(path, emb.numpy())  # want CD101
