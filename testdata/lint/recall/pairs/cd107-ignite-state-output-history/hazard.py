import torch
from ignite.engine import Engine, Events


def build_trainer(model, optimizer, loss_fn, device):
    def train_step(engine, batch):
        model.train()
        optimizer.zero_grad()
        x, y = batch[0].to(device), batch[1].to(device)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    trainer = Engine(train_step)
    history = []

    @trainer.on(Events.ITERATION_COMPLETED)
    def record(engine):
        history.append(engine.state.output)  # want CD107

    return trainer, history
