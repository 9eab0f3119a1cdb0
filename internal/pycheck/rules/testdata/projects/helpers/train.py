import time

import torch
from torch import nn

import pkg.transfer as tr
from pkg import to_host, wait_for_gpu
from pkg.gpu import causal_mask, run_model
from pkg.transfer import fetch, scalar


def log_probs(model, x):
    h = to_host(model(x).softmax(-1))
    print(h.tolist())  # want CD101


def log_probs_module_alias(model, x):
    h = tr.to_host(model(x))
    return h.numpy()  # want CD101


def log_probs_through_fetch(model, x):
    h = fetch(model(x))
    return h[0]  # want CD101


def log_probs_synced(model, x):
    h = tr.to_host(model(x))
    wait_for_gpu()
    return h.numpy()


def log_probs_ready(model, x):
    h = tr.to_host_ready(model(x))
    return h.numpy()


def timed_step(model, batch):
    start = time.perf_counter()
    out = run_model(model, batch)
    elapsed = time.perf_counter() - start  # want CD108
    return out, elapsed


def timed_step_synced(model, batch):
    start = time.perf_counter()
    out = run_model(model, batch)
    loss = scalar(out.mean())
    elapsed = time.perf_counter() - start
    return loss, elapsed


def capture(model, static_x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(static_x)
        tr.scalar(out)  # want CD110
    return g


class Decoder(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        mask = causal_mask(x.shape[1])  # want CD111
        return self.proj(x).masked_fill(mask, 0.0)


from pkg.gpu import host_copy, host_copy_unsynced


def read_synced_in_helper(x):
    return host_copy(x).numpy()


def read_unsynced(x):
    y = host_copy_unsynced(x)
    return y.numpy()  # want CD101
