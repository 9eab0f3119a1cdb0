import torch

HOST = torch.device("cpu")


def decode_boxes(raw: torch.Tensor, threshold: float = 0.5) -> list[tuple[float, ...]]:
    scores = raw[:, 4].sigmoid()
    keep = raw[scores > threshold]
    host = keep.to(HOST, non_blocking=True)
    return [tuple(row) for row in host.tolist()]  # want CD101
