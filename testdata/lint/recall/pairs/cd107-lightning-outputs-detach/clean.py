import torch
import lightning as L


class LitModel(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.training_step_outputs = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.training_step_outputs.append(loss.detach())
        return loss

    def on_train_epoch_end(self):
        avg = torch.stack(self.training_step_outputs).mean()
        self.log("train_loss_epoch", avg)
        self.training_step_outputs.clear()
