import torch


class EmbeddingBank:
    def __init__(self, size, dim):
        self.bank = torch.randn(size, dim, device="cuda") * 50

    def norms(self):
        return self.bank.detach().half().norm(dim=-1)  # want CD106
