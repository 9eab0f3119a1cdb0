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
