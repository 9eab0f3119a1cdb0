import numpy as np
import torch

# Pageable numpy source: the copy is synchronous (s21, first half).
cpu_array = np.random.rand(1000, 1000).astype(np.float32)
gpu = torch.from_numpy(cpu_array).to("cuda")
cpu_array[:] = 0.0

def synchronised(n):
    src = torch.full((n,), 1.0).pin_memory()
    dst = src.to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    src.fill_(-1.0)
    return dst

def pageable(x):
    src = x.clone()
    dst = src.to("cuda", non_blocking=True)
    src.zero_()
    return dst

def reassigned(n):
    src = torch.ones(n).pin_memory()
    dst = src.to("cuda", non_blocking=True)
    src = torch.zeros(n)
    src.fill_(3)
    return dst

def loop_synced(batches):
    buf = torch.empty(4096).pin_memory()
    for b in batches:
        buf.copy_(b)
        out = buf.to("cuda", non_blocking=True)
        torch.cuda.current_stream().synchronize()
        yield out

def requires_grad(n):
    src = torch.ones(n).pin_memory()
    dst = src.to("cuda", non_blocking=True)
    src.requires_grad_()
    return dst


# Flow: every pass synchronises before the buffer is refilled.
def refill(batches, flush_every):
    buf = torch.empty(4096).pin_memory()
    outs = []
    for i, b in enumerate(batches):
        buf.copy_(b)
        outs.append(buf.to("cuda", non_blocking=True))
        if i % flush_every == 0:
            outs[-1] = outs[-1].clone()
        torch.cuda.synchronize()
    return outs


# Flow: a fresh pinned buffer each pass; the old one is never written.
def fresh(batches):
    outs = []
    for b in batches:
        buf = torch.empty(4096).pin_memory()
        buf.copy_(b)
        outs.append(buf.to("cuda", non_blocking=True))
    return outs


# Flow: the write comes after a synchronize on every path.
def send(x, wait):
    buf = torch.empty(x.shape).pin_memory()
    buf.copy_(x)
    out = buf.cuda(non_blocking=True)
    if wait:
        torch.cuda.synchronize()
    else:
        torch.cuda.current_stream().synchronize()
    buf.zero_()
    return out


# Aliases: the name that is written was rebound to a fresh buffer first.
def stage_alias(batch):
    pinned = torch.empty(batch.shape, pin_memory=True)
    buf = pinned
    gpu = buf.cuda(non_blocking=True)
    buf = torch.empty_like(pinned)
    buf.zero_()
    return gpu


# The name the buffer was copied from is rebound to a fresh buffer before
# the copy: writing it does not touch the buffer being copied.
def stage_swap(batch):
    pinned = torch.empty(batch.shape, pin_memory=True)
    pinned.copy_(batch)
    buf = pinned
    pinned = torch.empty(batch.shape, pin_memory=True)
    gpu = buf.cuda(non_blocking=True)
    pinned.fill_(0)
    return gpu, pinned


# loss.item() waits for the stream the upload of x ran on before the refill.
def refill_after_item(model, batches):
    staging = torch.empty(16, 8, pin_memory=True)
    for batch in batches:
        staging.copy_(batch)
        x = staging.to("cuda", non_blocking=True)
        loss = model(x).mean()
        print(loss.item())
