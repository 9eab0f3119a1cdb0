from dataclasses import dataclass

import torch


@dataclass
class StepOutput:
    loss: torch.Tensor
    accuracy: torch.Tensor


def evaluate_batch(model, x, y) -> StepOutput:
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits, y)
    acc = (logits.argmax(-1) == y).float().mean()
    return StepOutput(
        loss=loss.detach().to("cpu", non_blocking=True),
        accuracy=acc.to("cpu", non_blocking=True),
    )


def log_batch(model, x, y) -> str:
    out = evaluate_batch(model, x, y)
    torch.cuda.synchronize()
    return f"loss={out.loss.item():.4f} acc={out.accuracy.item():.3f}"
