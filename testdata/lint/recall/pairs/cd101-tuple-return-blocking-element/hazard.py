def fetch(logits, labels):
    probs = logits.softmax(-1).cpu(non_blocking=True)
    return probs, labels.cpu()


def accuracy(model, x, y):
    probs, labels = fetch(model(x), y)
    hits = (probs.argmax(-1) == labels).sum()  # want CD101
    return int(hits) / len(labels)
