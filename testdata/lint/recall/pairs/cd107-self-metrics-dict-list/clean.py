from collections import defaultdict

import torch.nn as nn


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.criterion = nn.CrossEntropyLoss()
        self.metrics = defaultdict(list)

    def train_epoch(self, loader):
        self.model.train()
        for inputs, targets in loader:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(inputs), targets)
            loss.backward()
            self.optimizer.step()
            self.metrics["train"].append(loss.item())
