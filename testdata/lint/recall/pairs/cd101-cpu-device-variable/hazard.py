import numpy as np
import torch

cpu = torch.device("cpu")


def embed_all(encoder, batches):
    rows = []
    for batch in batches:
        emb = encoder(batch.cuda(non_blocking=True))
        emb = emb.to(cpu, non_blocking=True)
        rows.append(emb.numpy().astype(np.float32))  # want CD101
    return np.concatenate(rows)
