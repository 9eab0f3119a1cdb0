import torch


class Callback:
    order = 0


class TrainCB(Callback):
    def predict(self):
        self.learn.preds = self.learn.model(self.learn.batch[0])

    def get_loss(self):
        self.learn.loss = self.learn.loss_func(self.learn.preds, self.learn.batch[1])

    def backward(self):
        self.learn.loss.backward()

    def step(self):
        self.learn.opt.step()

    def zero_grad(self):
        self.learn.opt.zero_grad()


class LossHistoryCB(Callback):
    order = 10

    def before_fit(self, learn):
        self.losses = []

    def after_batch(self, learn):
        if learn.training:
            self.losses.append(learn.loss)  # want CD107

    def after_fit(self, learn):
        print(torch.stack(self.losses).mean())
