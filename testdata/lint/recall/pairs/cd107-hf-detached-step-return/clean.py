import torch


class Trainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt

    def training_step(self, inputs):
        outputs = self.model(**inputs)
        loss = outputs.loss
        loss.backward()
        return loss.detach()

    def train(self, loader):
        tr_loss = torch.tensor(0.0)
        for inputs in loader:
            step_loss = self.training_step(inputs)
            tr_loss += step_loss
            self.opt.step()
            self.opt.zero_grad()
        return tr_loss.item() / len(loader)
