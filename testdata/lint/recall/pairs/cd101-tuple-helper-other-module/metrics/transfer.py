def fetch_pair(loss, acc):
    return loss.detach().to("cpu", non_blocking=True), acc.to("cpu", non_blocking=True)
