def scores_to_cpu(scores):
    host = scores.float().cpu(non_blocking=True)
    return host
