import torch


@torch.no_grad()
def embed(model, x):
    return model(x.cuda()).to("cpu", non_blocking=True)


def index_vectors(model, batches, index):
    for x in batches:
        vecs = embed(model, x)
        index.add(vecs.numpy())  # want CD101
