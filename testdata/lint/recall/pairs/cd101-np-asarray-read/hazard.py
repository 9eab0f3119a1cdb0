import numpy as np
import torch


def embed_corpus(encoder, loader):
    chunks = []
    with torch.no_grad():
        for batch in loader:
            emb = encoder(batch.cuda(non_blocking=True))
            host = emb.to("cpu", non_blocking=True)
            chunks.append(np.asarray(host))  # want CD101
    return np.concatenate(chunks)
