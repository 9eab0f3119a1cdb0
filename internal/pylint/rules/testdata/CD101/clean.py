import torch

def synchronised(logits):
    probs = logits.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    return probs.tolist()

def event_synchronised(x):
    host = x.cpu(non_blocking=True)
    done = torch.cuda.Event()
    done.record()
    done.synchronize()
    return host.numpy()

def blocking(x):
    host = x.cpu()
    return host.tolist()

def host_to_device(x):
    dev = x.to("cuda", non_blocking=True)
    return dev[0]

def rebound(x):
    h = x.cpu(non_blocking=True)
    h = x.cpu()
    return h.tolist()

def in_string():
    return "y = x.cpu(non_blocking=True); y.tolist()"

def stream_sync(x, stream):
    out = x.to("cpu", non_blocking=True)
    stream.synchronize()
    out[0] = 1
    return out.item()
