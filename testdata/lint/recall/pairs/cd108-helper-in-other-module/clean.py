import time

from steps import train_step_logged


def epoch(model, optimizer, loader, log):
    for i, batch in enumerate(loader):
        tic = time.monotonic()
        loss = train_step_logged(model, optimizer, batch)
        log(i, loss, time.monotonic() - tic)
