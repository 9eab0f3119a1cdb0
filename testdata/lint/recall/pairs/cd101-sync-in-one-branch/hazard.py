import torch


def predictions(logits, verbose=False):
    host = logits.argmax(-1).cpu(non_blocking=True)
    if verbose:
        torch.cuda.synchronize()
        print("copied")
    return host.numpy()  # want CD101
