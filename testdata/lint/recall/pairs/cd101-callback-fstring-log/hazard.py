import logging

import torch

logger = logging.getLogger(__name__)


class GradNormLogger:
    """Called by the training loop after every optimiser step."""

    def __init__(self, every: int = 50) -> None:
        self.every = every

    def on_step_end(self, step: int, model: torch.nn.Module) -> None:
        if step % self.every:
            return
        norms = [p.grad.norm() for p in model.parameters() if p.grad is not None]
        total = torch.stack(norms).norm().to("cpu", non_blocking=True)
        logger.info(f"step {step}: grad norm {total.item():.3f}")  # want CD101
