from typing import NamedTuple

import torch


class HostPreds(NamedTuple):
    scores: torch.Tensor
    labels: torch.Tensor


def predict(model, images) -> HostPreds:
    logits = model(images)
    probs = logits.softmax(-1)
    return HostPreds(
        probs.max(-1).values.to("cpu", non_blocking=True),
        probs.argmax(-1).to("cpu", non_blocking=True),
    )


def write_rows(model, images, sink) -> None:
    preds = predict(model, images)
    torch.cuda.current_stream().synchronize()
    for score, label in zip(preds.scores.tolist(), preds.labels.tolist()):
        sink.write(f"{label},{score:.4f}\n")
