import torch


@torch.no_grad()
def embeddings_to_numpy(encoder, tokens):
    emb = encoder(tokens).mean(dim=1)
    out = emb.cpu(non_blocking=False)
    return out.numpy()
