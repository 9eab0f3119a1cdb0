import contextlib
import functools

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


# Flow: every pass synchronises before reading the previous pass's copy.
def drain(batches):
    host = None
    for b in batches:
        torch.cuda.synchronize()
        if host is not None:
            print(host.numpy().mean())
        host = b.to("cpu", non_blocking=True)


# Flow: both branches synchronise.
def both_synced(x, stream):
    host = x.to("cpu", non_blocking=True)
    if stream is not None:
        stream.synchronize()
    else:
        torch.cuda.synchronize()
    return host.tolist()


# Flow: the try body synchronises before the finally clause reads.
def logged(x, log):
    try:
        stats = x.to("cpu", non_blocking=True)
        torch.cuda.synchronize()
    finally:
        log.write(str(stats[0]))


# Flow: rebound to a blocking copy on every path before the read.
def rebound(x, pinned):
    host = x.to("cpu", non_blocking=True)
    if pinned:
        host = x.cpu()
    else:
        host = x.to("cpu")
    return host.tolist()


# Flow: the early return leaves before the read on the unsynchronised path.
def early(x, ready):
    host = x.to("cpu", non_blocking=True)
    if not ready:
        return None
    torch.cuda.synchronize()
    return host.tolist()


# Aliases: the previous step's copy is read after a synchronize; the
# tuple's copy made with non_blocking is not the one read; the alias is
# rebound before it is read.
def stream_stats(model, loader):
    prev = None
    for x in loader:
        cur = model(x.cuda()).to("cpu", non_blocking=True)
        torch.cuda.synchronize()
        if prev is not None:
            print(prev.tolist())
        prev = cur
    return prev


def pair(a, b):
    ha, hb = a.cpu(non_blocking=True), b.cpu()
    return hb.tolist()


def renamed(t):
    host = t.to("cpu", non_blocking=True)
    out = host
    out = t.cpu()
    return out.numpy()


# The synchronize runs before the suppressing with.
def poll(x, check):
    host = x.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    with contextlib.suppress(RuntimeError):
        check(x)
    return host.tolist()


# A plain with: a raise in its body leaves the function, so the read runs
# only after the synchronize.
def poll_plain(x, check):
    host = x.to("cpu", non_blocking=True)
    with torch.no_grad():
        check(x)
        torch.cuda.synchronize()
    return host.tolist()


# Tuples of copies: the element read was made blocking, the caller
# synchronises before reading, the helper synchronises before returning,
# or the tuple is not unpacked.
def mixed_pair(a, b):
    return a.cpu(non_blocking=True), b.cpu()


def reads_blocking_element(a, b):
    x, y = mixed_pair(a, b)
    return y.tolist(), x


def host_pair(a, b):
    return a.cpu(non_blocking=True), b.to("cpu", non_blocking=True)


def synced_caller(a, b):
    x, y = host_pair(a, b)
    torch.cuda.synchronize()
    return x.tolist(), y.numpy()


def synced_pair(a, b):
    ha, hb = a.cpu(non_blocking=True), b.cpu(non_blocking=True)
    torch.cuda.synchronize()
    return ha, hb


def reads_synced(a, b):
    x, y = synced_pair(a, b)
    return x.tolist() + y.tolist()


def starred(a, b):
    first, *rest = host_pair(a, b)
    torch.cuda.synchronize()
    return first.item(), rest


# The numpy view shares the copy's memory and reads nothing: the caller
# waits on the event before using what this returns.
def start_copy_to_host(counts, as_array):
    counts_host = counts.to("cpu", non_blocking=True)
    if as_array:
        counts_host = counts_host.numpy()
    done = torch.cuda.Event()
    done.record()
    return counts_host, done


# .item() on the tensor the copy reads drains the stream the copy is on.
def next_tokens(logits, eos_id):
    ids = logits[:, -1].argmax(-1)
    host_ids = ids.to("cpu", non_blocking=True)
    finished = bool((ids == eos_id).all())
    return host_ids.tolist(), finished


# Spinning on the event until it is done completes the copy recorded before it.
def poll_until_copied(t, wait):
    host = t.to("cpu", non_blocking=True)
    ready = torch.cuda.Event()
    ready.record()
    while not ready.query():
        wait()
    return host.numpy()


# synchronize imported under another name still waits.
def synced_through_alias(t):
    from torch.cuda import synchronize as sync

    host = t.to("cpu", non_blocking=True)
    sync()
    return host.tolist()


# The key's parameter is its own name, not the copy; the copy is read after the wait.
def rank_after_sync(scores, names):
    host = scores.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    vals = host.tolist()
    return sorted(range(len(names)), key=lambda host: -vals[host])


# The reading method waits on the event the storing method recorded.
class PendingIdsSynced:
    def stash(self, logits):
        self.pending = logits.argmax(-1).to("cpu", non_blocking=True)
        self.ready = torch.cuda.Event()
        self.ready.record()

    def flush(self):
        self.ready.synchronize()
        return self.pending.tolist()


# The list of copies is read after a synchronize().
def collect_preds_synced(model, batches):
    outs = []
    for x in batches:
        outs.append(model(x).to("cpu", non_blocking=True))
    torch.cuda.synchronize()
    return [o.argmax(-1).tolist() for o in outs]


# Every path out of the making method waits: the early return after its
# own synchronize, the end after the other.
class StagedScoresSynced:
    def stage(self, scores, quick):
        self.host = scores.to("cpu", non_blocking=True)
        if quick:
            torch.cuda.synchronize()
            return
        self.scale = 2
        torch.cuda.synchronize()

    def top(self):
        return self.host.max().item()


# A wait in a finally clause runs on every way out.
class StagedLabelsFinally:
    def stage(self, logits, log):
        try:
            self.labels = logits.argmax(-1).to("cpu", non_blocking=True)
            log("staged")
        finally:
            torch.cuda.synchronize()

    def as_list(self):
        return self.labels.tolist()


def decode_outputs(out):
    host = {k: v.to("cpu", non_blocking=True) for k, v in out.items()}
    keys = list(host.keys())
    torch.cuda.synchronize()
    return keys, host["logits"].argmax(-1).numpy()


ACCEL = torch.device("cuda")


def scores_to_accel(model, x):
    s = x.to(ACCEL, non_blocking=True)
    return model(s).tolist()


def log_heads_synced(out, log):
    host = {k: v.to("cpu", non_blocking=True) for k, v in out.items()}
    torch.cuda.synchronize()
    for k, v in host.items():
        log(k, v.tolist())


def pair_copies_with_names(outputs, names):
    # Iterating a list of copies hands the tensors on; nothing is read.
    hosts = [o.to("cpu", non_blocking=True) for o in outputs]
    return dict(zip(names, hosts))


class CountsOnHostSynced:
    def __init__(self, n):
        self.counts = torch.zeros(n, device="cuda")

    @property
    def host(self):
        h = self.counts.to("cpu", non_blocking=True)
        torch.cuda.synchronize()
        return h

    def report(self):
        return self.host.tolist()


class WaitsOnExit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.cuda.synchronize()
        return False


def read_after_block(t):
    # __exit__ waits for the GPU: past the block the copy is complete.
    with WaitsOnExit():
        host = t.to("cpu", non_blocking=True)
    return host.numpy()


def options_in_a_mapping(t, extra):
    # The mapping says non_blocking=False, or its keys are not known here.
    opts = dict(device="cpu", non_blocking=False)
    a = t.to(**opts)
    b = t.to(**extra)
    return a.tolist(), b.numpy()


def yields_waited(model, loader):
    for x in loader:
        host = model(x.cuda()).to("cpu", non_blocking=True)
        torch.cuda.synchronize()
        yield host


def consume_yielded(model, loader):
    for y in yields_waited(model, loader):
        print(y.tolist())


to_cpu_lambda = lambda t: t.to("cpu")
to_cpu_partial = functools.partial(torch.Tensor.to, device="cpu", non_blocking=False)


def through_wrappers(t):
    a = to_cpu_lambda(t)
    b = to_cpu_partial(t)
    print(a.tolist())
    return b.numpy()


def walrus_in_test(pred):
    if (host := pred.to("cpu", non_blocking=True)).numel():
        torch.cuda.synchronize()
        return host.tolist()
    return []


def unpacked_from_generator(boxes, scores):
    b, s = (t.to("cpu", non_blocking=True) for t in (boxes, scores))
    torch.cuda.synchronize()
    return b, s.tolist()


def stash(t, device="cuda"):
    host = t.to(device, non_blocking=True)
    return host.tolist()


def dump_state(model, path):
    out = {}
    for k, v in model.state_dict().items():
        out[k] = v.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    torch.save(out, path)


class Ring:
    def __init__(self, n):
        self.buf = torch.empty(n, pin_memory=True)
        self.view = self.buf.numpy()

    def push(self, src):
        for i in range(0, src.numel(), 4):
            self.buf[i : i + 4].copy_(src[i : i + 4], non_blocking=True)
        torch.cuda.synchronize()

    def peek(self):
        return self.view[0]


class TokenSink:
    def __init__(self, n):
        self.pinned = torch.empty(n, dtype=torch.int64, pin_memory=True)
        self.ready = torch.cuda.Event()

    def fetch(self, ids):
        part = self.pinned[: ids.numel()]
        part.copy_(ids, non_blocking=True)
        self.ready.record()
        self.ready.synchronize()
        return part.tolist()
