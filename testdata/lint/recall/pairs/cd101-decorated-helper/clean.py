import torch


@torch.no_grad()
def embed(model, x):
    out = model(x.cuda()).to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    return out


def index_vectors(model, batches, index):
    for x in batches:
        vecs = embed(model, x)
        index.add(vecs.numpy())
