from dataclasses import dataclass

import torch


@dataclass
class EmbedConfig:
    dtype: torch.dtype = torch.float16
    normalize: bool = True


def embed(encoder, tokens, cfg: EmbedConfig) -> torch.Tensor:
    x = encoder(tokens).to(cfg.dtype)
    if not cfg.normalize:
        return x
    norms = x.norm(dim=-1, keepdim=True)  # want CD106
    return x / norms
