import logging

import torch

logger = logging.getLogger(__name__)


def build_graph(step_fn, static_x: torch.Tensor):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_loss = step_fn(static_x)
    g.replay()
    logger.debug(f"replayed loss {static_loss.item():.4f}")
    return g, static_loss
