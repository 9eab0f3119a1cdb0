import torch


class EmbeddingBank:
    def __init__(self, size, dim):
        self.bank = torch.randn(size, dim, device="cuda") * 50

    def norms(self):
        return self.bank.detach().float().norm(dim=-1)
