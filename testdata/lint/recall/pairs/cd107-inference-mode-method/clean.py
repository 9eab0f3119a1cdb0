import torch


class Runner:
    def __init__(self, model, crit, opt):
        self.model, self.crit, self.opt = model, crit, opt

    def train_step(self, x, y):
        self.opt.zero_grad()
        loss = self.crit(self.model(x), y)
        loss.backward()
        self.opt.step()
        return loss.item()

    @torch.inference_mode()
    def evaluate(self, loader):
        total = 0.0
        for x, y in loader:
            total += self.crit(self.model(x), y)
        return total / len(loader)
