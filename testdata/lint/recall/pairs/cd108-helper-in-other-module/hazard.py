import time

from steps import train_step


def epoch(model, optimizer, loader, log):
    for i, batch in enumerate(loader):
        tic = time.monotonic()
        train_step(model, optimizer, batch)
        log(i, time.monotonic() - tic)  # want CD108
