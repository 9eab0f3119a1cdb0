import torch


def gather_scores(scores, mode):
    match mode:
        case "overlap":
            host = scores.to("cpu", non_blocking=True)
        case _:
            host = scores.cpu()
    return host.tolist()  # want CD101
