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
    norms = x.float().norm(dim=-1, keepdim=True)
    return (x.float() / norms).to(cfg.dtype)
