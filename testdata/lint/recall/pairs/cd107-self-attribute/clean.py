import torch


class Trainer:
    def __init__(self, model, opt):
        self.model, self.opt = model, opt
        self.epoch_loss = 0.0

    def run(self, loader):
        for x, y in loader:
            loss = self.model(x, y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.epoch_loss += loss.item()
