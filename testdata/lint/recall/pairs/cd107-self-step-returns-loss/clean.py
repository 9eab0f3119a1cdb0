import torch


class Fitter:
    def __init__(self, model, opt):
        self.model, self.opt = model, opt

    def _update(self, batch):
        self.opt.zero_grad()
        out = self.model(batch["x"])
        err = torch.nn.functional.mse_loss(out, batch["y"])
        err.backward()
        self.opt.step()
        return err.item()

    def fit(self, loader):
        epoch_total = 0.0
        for batch in loader:
            epoch_total += self._update(batch)
        return epoch_total / len(loader)
