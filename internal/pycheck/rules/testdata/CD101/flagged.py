import contextlib
import functools

import torch

def top_tokens(logits):
    probs = logits.softmax(-1).to("cpu", non_blocking=True)
    return probs.tolist()  # want CD101

def scores(x):
    host = x.cpu(non_blocking=True)
    print(host)  # want CD101
    torch.cuda.synchronize()
    return host

def first(x):
    h = x.to(device="cpu", non_blocking=True)
    return h[0]  # want CD101

def inline(x):
    return x.cpu(non_blocking=True).numpy()  # want CD101

def scalar(x):
    v = x.sum().to("cpu", non_blocking=True)
    return float(v)  # want CD101


def fetch_scores(logits):
    host = logits.softmax(-1).to("cpu", non_blocking=True)
    return host


def caller(logits):
    scores = fetch_scores(logits)
    return scores.tolist()  # want CD101


# Flow: the read at the top of the loop body sees the copy made at the end
# of the previous pass.
def drain(batches):
    host = None
    for b in batches:
        if host is not None:
            print(host.numpy().mean())  # want CD101
        host = b.to("cpu", non_blocking=True)


# Flow: the synchronize runs on one branch only.
def maybe_synced(x, exact):
    host = x.to("cpu", non_blocking=True)
    if exact:
        torch.cuda.synchronize()
    return host.tolist()  # want CD101


# Flow: copy in the try body, read in the finally clause.
def logged(x, log):
    try:
        stats = x.to("cpu", non_blocking=True)
    finally:
        log.write(str(stats[0]))  # want CD101


# Flow: continue skips the synchronize on the way back to the read.
def skips(batches, keep):
    last = None
    for b in batches:
        if last is not None:
            keep.append(last.item())  # want CD101
        last = b.sum().to("cpu", non_blocking=True)
        if b.numel() == 0:
            continue
        torch.cuda.synchronize()


# Aliases: the copy goes on in another name (the previous step's result,
# a plain copy of the name, one target of a tuple assignment).
def stream_stats(model, loader):
    prev = None
    for x in loader:
        cur = model(x.cuda()).to("cpu", non_blocking=True)
        if prev is not None:
            print(prev.tolist())  # want CD101
        prev = cur
    torch.cuda.synchronize()
    return prev


def renamed(t):
    host = t.to("cpu", non_blocking=True)
    out = host
    return out.numpy()  # want CD101


def pair(a, b):
    ha, hb = a.cpu(), b.cpu(non_blocking=True)
    return hb.tolist()  # want CD101


def view_of_buffer(src, staging):
    staging = torch.empty(src.shape, pin_memory=True)
    view = staging
    staging.copy_(src, non_blocking=True)
    return view.sum().item()  # want CD101


# A raise in the body of a suppressing with skips its synchronize and goes
# on after the with.
def poll(x, check):
    host = x.to("cpu", non_blocking=True)
    with contextlib.suppress(RuntimeError):
        check(x)
        torch.cuda.synchronize()
    return host.tolist()  # want CD101


# A helper returns a tuple of copies; the caller unpacks it.
def host_pair(a, b):
    ha = a.cpu(non_blocking=True)
    return ha, b.to("cpu", non_blocking=True)


def unpacked(a, b):
    x, y = host_pair(a, b)
    return x.tolist(), y  # want CD101


def unpacked_second(a, b):
    (_, y) = host_pair(a, b)
    return y[0]  # want CD101


def forwards_pair(a, b):
    return host_pair(a, b)


def unpacked_through_forwarder(a, b):
    x, y = forwards_pair(a, b)
    print(y)  # want CD101


# The view is read before the copy has landed.
def first_count(counts):
    view = counts.to("cpu", non_blocking=True).numpy()
    return view[0]  # want CD101


# On a side stream, .item() on the current stream does not wait for the copy.
def side_stream_item(t, stream):
    with torch.cuda.stream(stream):
        host = t.to("cpu", non_blocking=True)
    n = t.sum().item()
    return host.tolist(), n  # want CD101


# A name rebound to the host copy is read, not waited on.
def rebound_to_host(t):
    t = t.to("cpu", non_blocking=True)
    return t.sum().item()  # want CD101


# A sort key runs inside sorted(): its read of the copy happens there.
def rank_by_score(scores, names):
    host = scores.to("cpu", non_blocking=True)
    order = sorted(range(len(names)), key=lambda i: -host[i].item())  # want CD101
    return [names[i] for i in order]


# A copy kept in self by one method and read by another.
class PendingIds:
    def stash(self, logits):
        self.pending = logits.argmax(-1).to("cpu", non_blocking=True)

    def flush(self):
        return self.pending.tolist()  # want CD101


# Copies appended to a list, read element by element in a comprehension.
def collect_preds(model, batches):
    outs = []
    for x in batches:
        outs.append(model(x).to("cpu", non_blocking=True))
    return [o.argmax(-1).tolist() for o in outs]  # want CD101


# The method that makes the copy waits only on one path: an early return
# leaves it unfinished for the method that reads it.
class StagedScores:
    def stage(self, scores, quick):
        self.host = scores.to("cpu", non_blocking=True)
        if quick:
            return
        torch.cuda.synchronize()

    def top(self):
        return self.host.max().item()  # want CD101


# A wait on one branch of the making method only.
class StagedLabels:
    def stage(self, logits, debug):
        self.labels = logits.argmax(-1).to("cpu", non_blocking=True)
        if debug:
            torch.cuda.current_stream().synchronize()

    def as_list(self):
        return self.labels.tolist()  # want CD101


def decode_outputs(out):
    host = {k: v.to("cpu", non_blocking=True) for k, v in out.items()}
    return host["logits"].argmax(-1).numpy()  # want CD101


HOST = torch.device("cpu")


def scores_to_host(model, x):
    s = model(x.cuda()).to(HOST, non_blocking=True)
    return s.tolist()  # want CD101


def log_heads(out, log):
    host = {k: v.to("cpu", non_blocking=True) for k, v in out.items()}
    for k, v in host.items():
        log(k, v.tolist())  # want CD101


class CountsOnHost:
    def __init__(self, n):
        self.counts = torch.zeros(n, device="cuda")

    @property
    def host(self):
        return self.counts.to("cpu", non_blocking=True)

    def report(self):
        return self.host.tolist()  # want CD101


class WaitsOnExit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.cuda.synchronize()
        return False


def read_inside_block(t):
    with WaitsOnExit():
        host = t.to("cpu", non_blocking=True)
        return host.numpy()  # want CD101


ASYNC_HOST = {"device": "cpu", "non_blocking": True}


def options_in_a_mapping(t):
    opts = dict(device="cpu", non_blocking=True)
    a = t.to(**opts)
    b = t.to(**ASYNC_HOST)
    print(b.numpy())  # want CD101
    return a.tolist()  # want CD101


def yields_copies(model, loader):
    for x in loader:
        yield model(x.cuda()).to("cpu", non_blocking=True)


def yields_pairs(model, loader):
    for i, x in enumerate(loader):
        yield i, model(x.cuda()).to("cpu", non_blocking=True)


def consume_yielded(model, loader):
    for y in yields_copies(model, loader):
        print(y.tolist())  # want CD101
    for i, y in yields_pairs(model, loader):
        print(i, y.numpy())  # want CD101


to_cpu_lambda = lambda t: t.to("cpu", non_blocking=True)
to_cpu_partial = functools.partial(torch.Tensor.to, device="cpu", non_blocking=True)


def through_wrappers(t):
    a = to_cpu_lambda(t)
    b = to_cpu_partial(t)
    print(a.tolist())  # want CD101
    return b.numpy()  # want CD101


def walrus_in_test(pred):
    if (host := pred.to("cpu", non_blocking=True)).numel():
        return host.tolist()  # want CD101
    return []


def unpacked_from_generator(boxes, scores):
    b, s = (t.to("cpu", non_blocking=True) for t in (boxes, scores))
    return b, s.tolist()  # want CD101


def stash(t, device="cpu"):
    host = t.to(device, non_blocking=True)
    return host.tolist()  # want CD101


def dump_state(model, path):
    out = {}
    for k, v in model.state_dict().items():
        out[k] = v.to("cpu", non_blocking=True)
    torch.save(out, path)  # want CD101


class Ring:
    def __init__(self, n):
        self.buf = torch.empty(n, pin_memory=True)
        self.view = self.buf.numpy()

    def push(self, src):
        self.buf[: src.numel()].copy_(src, non_blocking=True)

    def peek(self):
        return self.view[0]  # want CD101


class TokenSink:
    def __init__(self, n):
        self.pinned = torch.empty(n, dtype=torch.int64, pin_memory=True)

    def fetch(self, ids):
        part = self.pinned[: ids.numel()]
        part.copy_(ids, non_blocking=True)
        return part.tolist()  # want CD101
