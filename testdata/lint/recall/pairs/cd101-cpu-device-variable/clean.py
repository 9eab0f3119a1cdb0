import numpy as np
import torch

cpu = torch.device("cpu")


def embed_all(encoder, batches):
    rows = []
    for batch in batches:
        emb = encoder(batch.cuda(non_blocking=True))
        emb = emb.to(cpu)
        rows.append(emb.numpy().astype(np.float32))
    return np.concatenate(rows)
