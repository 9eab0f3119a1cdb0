import torch


def gather_to_host(chunks):
    host_chunks = []
    for c in chunks:
        host_chunks.append(c.to(device="cpu", non_blocking=True))
    return torch.cat(host_chunks)  # want CD101
