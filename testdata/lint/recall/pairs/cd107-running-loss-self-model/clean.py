import torch
from torch import nn


class LabelModel(nn.Module):
    def estimate(self, batches, epochs, lr=0.01):
        optimizer = torch.optim.SGD(self.parameters(), lr=lr)
        for epoch in range(epochs):
            running = 0.0
            for inputs in batches:
                optimizer.zero_grad()
                loss = -1 * torch.mean(self(*inputs))
                loss += self.regularization()
                loss.backward()
                optimizer.step()
                running += loss.item()
            print(epoch, running / len(batches))
