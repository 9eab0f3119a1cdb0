import functools
import time
import torch

model = torch.nn.Linear(4096, 4096).cuda()
x = torch.randn(64, 4096, device="cuda")
t0 = time.time()
y = model(x)
elapsed = time.time() - t0  # want CD108


def bench(model, x):
    start = time.perf_counter()
    for _ in range(10):
        out = model(x.cuda())
    end = time.perf_counter()  # want CD108
    return end - start


from time import perf_counter as clock


def timed_with_aliased_clock(model, x):
    t0 = clock()
    y = model(x.cuda())
    return clock() - t0  # want CD108


# Flow: break leaves the loop past the synchronize.
def timed_batches(model, batches):
    t0 = time.perf_counter()
    for b in batches:
        y = model(b.cuda())
        if y.numel() == 0:
            break
        torch.cuda.synchronize()
    return time.perf_counter() - t0  # want CD108


# Flow: the start is read on both branches, the wait on neither.
def timed_either(model, x, warm):
    if warm:
        t0 = time.perf_counter()
    else:
        t0 = time.perf_counter()
    y = model(x.cuda())
    elapsed = time.perf_counter() - t0  # want CD108
    return y, elapsed


def train_epoch_batch_time(model, loader, opt):
    end = time.time()
    for x, y in loader:
        loss = model(x.cuda(non_blocking=True), y.cuda(non_blocking=True))
        opt.zero_grad()
        loss.backward()
        opt.step()
        batch_time = time.time() - end  # want CD108
        end = time.time()
        print(batch_time)


@torch.compile
def fused(a, b):
    return torch.relu(a @ b)


def time_fused(a, b):
    a = a.cuda()
    t0 = time.perf_counter()
    c = fused(a, b)
    return c, time.perf_counter() - t0  # want CD108


import contextlib


@contextlib.contextmanager
def stopwatch(name):
    t0 = time.perf_counter()
    yield
    print(name, time.perf_counter() - t0)


def timed_forward(model, x):
    with stopwatch("fwd"):  # want CD108
        y = model(x.to("cuda"))
    return y


# A timing decorator: the wrapper reads the clock around the wrapped call
# and never waits, so every GPU function it decorates is timed at launch.
def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        print(f"{fn.__name__}: {time.perf_counter() - t0:.4f}s")
        return out

    return wrapper


@timed  # want CD108
def encode(model, images):
    return model(images.cuda(non_blocking=True))


def labelled(label):
    def deco(fn):
        def wrapper(*args, **kwargs):
            start = time.time()
            result = fn(*args, **kwargs)
            LOG[label] = time.time() - start
            return result

        return wrapper

    return deco


@labelled("denoise")  # want CD108
def denoise(unet, latents, t):
    return unet(latents.to("cuda"), t)
