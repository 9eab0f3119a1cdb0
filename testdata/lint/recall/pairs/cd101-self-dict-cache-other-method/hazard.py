import torch


class EmbeddingCache:
    def __init__(self) -> None:
        self.host: dict[str, torch.Tensor] = {}

    def put(self, key: str, emb: torch.Tensor) -> None:
        self.host[key] = emb.detach().to("cpu", non_blocking=True)

    def as_numpy(self, key: str):
        return self.host[key].numpy()  # want CD101
