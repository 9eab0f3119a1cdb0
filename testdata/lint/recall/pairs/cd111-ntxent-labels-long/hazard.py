import torch
from torch import nn


class NTXent(nn.Module):
    def __init__(self, batch_size, temperature):
        super().__init__()
        self.batch_size = batch_size
        self.temperature = temperature
        self.criterion = nn.CrossEntropyLoss(reduction="sum")
        self.similarity = nn.CosineSimilarity(dim=2)

    def _negatives_mask(self, n):
        mask = torch.ones((2 * n, 2 * n), dtype=torch.bool)
        mask.fill_diagonal_(False)
        for i in range(n):
            mask[i, n + i] = False
            mask[n + i, i] = False
        return mask

    def forward(self, z_i, z_j):
        n = z_i.size(0)
        z = torch.cat((z_i, z_j), dim=0)
        sim = self.similarity(z.unsqueeze(1), z.unsqueeze(0)) / self.temperature
        positives = torch.cat((torch.diag(sim, n), torch.diag(sim, -n)), dim=0).reshape(2 * n, 1)
        negatives = sim[self._negatives_mask(n).to(sim.device)].reshape(2 * n, -1)
        labels = torch.zeros(2 * n).long()  # want CD111
        logits = torch.cat((positives, negatives), dim=1)
        return self.criterion(logits, labels) / (2 * n)
