import functools
import time
import torch

model = torch.nn.Linear(4096, 4096).cuda()
x = torch.randn(64, 4096, device="cuda")

torch.cuda.synchronize()
t0 = time.time()
y = model(x)
torch.cuda.synchronize()
elapsed = time.time() - t0


def events(model, x):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    model(x)
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def reads_result(model, x):
    t = time.perf_counter()
    loss = model(x).sum().item()
    return time.perf_counter() - t, loss


def host_only(paths):
    t = time.time()
    data = [open(p).read() for p in paths]
    return time.time() - t, data


def timestamp():
    return time.time()


def two_starts(model, x):
    t0 = time.time()
    warm = model(x).sum().item()
    t1 = time.time()
    model(x)
    torch.cuda.synchronize()
    return time.time() - t1, t1 - t0


def wait_for_gpu():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def read_loss(loss):
    return loss.item()


def timed_through_helper(model, x):
    wait_for_gpu()
    start = time.time()
    y = model(x.cuda())
    wait_for_gpu()
    return time.time() - start


def timed_with_read(model, x):
    start = time.perf_counter()
    loss = model(x.cuda()).sum()
    value = read_loss(loss)
    return time.perf_counter() - start, value


def timed_host_work(rows):
    start = time.time()
    table = sorted(rows)
    return time.time() - start, table


synchronize_func = getattr(torch, "cuda").synchronize


def timed_with_bound_sync(model, x):
    synchronize_func()
    start = time.time()
    y = model(x)
    synchronize_func()
    return time.time() - start


# Flow: a wait on both branches.
def timed_step(model, x, stream):
    t0 = time.time()
    out = model(x)
    if stream is not None:
        stream.synchronize()
    else:
        torch.cuda.synchronize()
    return time.time() - t0, out


# Flow: the finally clause waits before the clock is read.
def timed_try(model, x):
    t0 = time.perf_counter()
    try:
        y = model(x.cuda())
    finally:
        torch.cuda.synchronize()
    return y, time.perf_counter() - t0


# Flow: the loop body waits after each step; the body runs.
def timed_loop(model, batches):
    t0 = time.perf_counter()
    for b in batches:
        model(b.cuda())
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def train_epoch_batch_time(model, loader, opt):
    end = time.time()
    for x, y in loader:
        data_time = time.time() - end
        loss = model(x.cuda(non_blocking=True), y.cuda(non_blocking=True))
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        batch_time = time.time() - end
        end = time.time()
        print(data_time, batch_time)


def cpu_helper(a):
    return sorted(a)


def time_cpu_helper(a):
    t0 = time.perf_counter()
    b = cpu_helper(a)
    return b, time.perf_counter() - t0


def time_fused_synced(a, fused):
    a = a.cuda()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    c = fused(a)
    torch.cuda.synchronize()
    return c, time.perf_counter() - t0


import contextlib


@contextlib.contextmanager
def host_stopwatch(name):
    t0 = time.perf_counter()
    yield
    print(name, time.perf_counter() - t0)


def timed_forward_synced(model, x):
    with host_stopwatch("fwd"):
        y = model(x.to("cuda"))
        torch.cuda.synchronize()
    return y


def timed_read(path):
    with host_stopwatch("read"):
        text = open(path).read()
    return text


# A timing decorator that synchronises before each clock read.
def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        torch.cuda.synchronize()
        print(f"{fn.__name__}: {time.perf_counter() - t0:.4f}s")
        return out

    return wrapper


@timed
def encode(model, images):
    return model(images.cuda(non_blocking=True))


# A plain timing decorator on functions that wait for their result (or run
# on the CPU) before returning.
def wall(fn):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        print(fn.__name__, time.perf_counter() - t0)
        return out

    return wrapper


@wall
def accuracy(model, images, labels):
    logits = model(images.cuda())
    return (logits.argmax(-1) == labels.cuda()).float().mean().item()


@wall
def load_split(path):
    return open(path).read().splitlines()
