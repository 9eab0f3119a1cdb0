import torch


def gather_to_host(chunks):
    host_chunks = []
    for c in chunks:
        host_chunks.append(c.to(device="cpu", non_blocking=True))
    done = torch.cuda.Event()
    done.record()
    done.synchronize()
    return torch.cat(host_chunks)
