import torch


def gather_outputs(outs):
    hosts = [o.cpu(non_blocking=True) for o in outs]
    torch.cuda.synchronize()
    return [h.numpy() for h in hosts]
