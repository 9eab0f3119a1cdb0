import torch


def should_stop(model, batch):
    finished = model.finished(batch)
    flags = finished.to("cpu", non_blocking=True)
    if flags.any():  # want CD101
        return True
    return False
