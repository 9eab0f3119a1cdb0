import torch

# The s21 pattern: pinned source overwritten while its copy is queued.
for trial in range(50):
    src = torch.full((64 << 20,), float(trial + 1)).pin_memory()
    dst = src.to("cuda", non_blocking=True)
    src.fill_(-1.0)  # want CD102
    torch.cuda.synchronize()

def staging(batch):
    buf = torch.empty(1024, pin_memory=True)
    buf.copy_(batch)
    out = buf.cuda(non_blocking=True)
    buf[:10] = 0  # want CD102
    return out

def add(x):
    host = x.pin_memory()
    gpu = torch.empty_like(host, device="cuda")
    gpu.copy_(host, non_blocking=True)
    host += 1  # want CD102
    return gpu

def loop(batches):
    buf = torch.empty(4096).pin_memory()
    outs = []
    for b in batches:
        buf.copy_(b)  # want CD102
        outs.append(buf.to("cuda", non_blocking=True))
    return outs


# Flow: the synchronize runs on some passes only; the next pass refills
# the buffer while the copy of the last may still run.
def refill(batches, flush_every):
    buf = torch.empty(4096).pin_memory()
    outs = []
    for i, b in enumerate(batches):
        buf.copy_(b)  # want CD102
        outs.append(buf.to("cuda", non_blocking=True))
        if i % flush_every == 0:
            torch.cuda.synchronize()
    return outs


# Flow: a pinned buffer made lazily, written after the copy on the path
# that skips the wait.
class Stager:
    def send(self, x, wait):
        buf = None
        if buf is None:
            buf = torch.empty(x.shape).pin_memory()
        buf.copy_(x)
        out = buf.cuda(non_blocking=True)
        if wait:
            torch.cuda.current_stream().synchronize()
        buf.zero_()  # want CD102
        return out


# Aliases: the buffer is written through another name for it.
def stage_alias(batch):
    pinned = torch.empty(batch.shape, pin_memory=True)
    buf = pinned
    buf.copy_(batch)
    gpu = buf.cuda(non_blocking=True)
    pinned.zero_()  # want CD102
    return gpu


def stage_view(batch, pinned):
    pinned = pinned.pin_memory()
    view = pinned
    gpu = pinned.cuda(non_blocking=True)
    view.fill_(0)  # want CD102
    return gpu
