import numpy as np
import torch


def embed_corpus(encoder, loader):
    chunks = []
    with torch.no_grad():
        for batch in loader:
            emb = encoder(batch.cuda(non_blocking=True))
            host = emb.to("cpu")
            chunks.append(np.asarray(host))
    return np.concatenate(chunks)
