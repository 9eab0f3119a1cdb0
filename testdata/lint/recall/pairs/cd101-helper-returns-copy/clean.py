import numpy as np
import torch


def to_host(t):
    out = t.detach().cpu(non_blocking=True)
    torch.cuda.current_stream().synchronize()
    return out


def save_embeddings(model, batch, path):
    emb = to_host(model(batch))
    np.save(path, emb.numpy())
