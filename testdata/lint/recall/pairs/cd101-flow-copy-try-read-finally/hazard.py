import logging

import torch

log = logging.getLogger(__name__)


def grad_norms(model):
    norms = torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])
    try:
        host_norms = norms.to("cpu", non_blocking=True)
    finally:
        log.info("max grad norm %.3f", host_norms.max())  # want CD101
