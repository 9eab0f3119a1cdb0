import functools

import torch

model = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192) for _ in range(4)]).cuda()
history = []
for step in range(10_000):
    x = torch.randn(2048, 8192, device="cuda")
    loss = model(x).pow(2).mean()
    history.append(loss)  # want CD107


def train(model, loader, opt):
    total = 0
    for x, y in loader:
        opt.zero_grad()
        out = model(x)
        err = torch.nn.functional.mse_loss(out, y)
        err.backward()
        opt.step()
        total += err  # want CD107
    return total


class Loop:
    def fit(self, model, loader):
        self.losses = []
        while True:
            batch_loss = model(next(loader)).mean()
            self.losses.append(batch_loss * 2)  # want CD107


# total = total + loss: += written out.
def fit(model, loader, crit, opt):
    running = 0.0
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        running = running + loss  # want CD107
    return running / len(loader)


# Flow: the loss is detached on one path only.
def fit_logged(model, loader, crit, log_every):
    seen = []
    for i, (x, y) in enumerate(loader):
        loss = crit(model(x), y)
        loss.backward()
        if i % log_every == 0:
            loss = loss.detach()
        seen.append(loss)  # want CD107
    return seen


# The step method returns the loss with its graph.
class GraphStepTrainer:
    def training_step(self, batch):
        loss = self.model(batch).loss
        loss.backward()
        return loss

    def fit(self, loader):
        tr_loss = 0.0
        for batch in loader:
            step_loss = self.training_step(batch)
            tr_loss += step_loss  # want CD107
            self.opt.step()
        return tr_loss


from lightning.pytorch import LightningModule  # noqa: E402


class LitClassifier(LightningModule):
    def training_step(self, batch, batch_idx):
        loss = self.loss_fn(self.net(batch[0]), batch[1])
        self.step_losses.append(loss)  # want CD107
        return loss


from transformers import Trainer  # noqa: E402

STEP_LOSSES = []


# transformers' Trainer calls compute_loss once per step with gradients
# on: its body is the loop's body, and the kept losses hold their graphs.
class LoggingTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        loss = outputs["loss"]
        self.recent_losses.append(loss)  # want CD107
        return (loss, outputs) if return_outputs else loss

    def training_step(self, model, inputs, num_items_in_batch=None):
        loss = super().training_step(model, inputs, num_items_in_batch)
        step_loss = self.compute_loss(model, inputs)
        STEP_LOSSES.append(step_loss)  # want CD107
        return loss


# A per-key sum kept in self across the steps, averaged when logging.
class AuxTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        self.aux_totals["aux"] += outputs.aux_loss  # want CD107
        return outputs.loss


def log_record(log, value):
    log.append(value)


def fit_records(model, loader, opt, crit):
    history, log = [], []
    for step, batch in enumerate(loader):
        out = model(**batch)
        out.loss.backward()
        opt.step()
        history.append({"step": step, "loss": out.loss})  # want CD107
        log_record(log, out.loss)  # want CD107
    return history, log


class Evaluator:
    def __init__(self, model):
        self.model = model
        self.criterion = torch.nn.CrossEntropyLoss()

    def evaluate(self, val_loader):
        total = 0.0
        for x, y in val_loader:
            total += self.criterion(self.model(x), y)  # want CD107
        return total / len(val_loader)


def train_terms(model, opt, loader):
    rec_sum = 0.0
    for x in loader:
        rec, kld = model(x)
        (rec + kld).backward()
        opt.step()
        rec_sum += rec  # want CD107
    return rec_sum


def train_dict_out(model, opt, loader):
    seen = []
    for batch in loader:
        out = model(**batch)
        out["loss"].backward()
        opt.step()
        seen.append(out["loss"])  # want CD107
    return seen


def one_step(model, opt, x):
    loss = model(x).mean()
    loss.backward()
    opt.step()
    return loss, x.shape[0]


def train_tuple(model, opt, loader):
    total = 0
    for x in loader:
        loss, n = one_step(model, opt, x)
        total += loss  # want CD107
    return total


def train_clone(model, opt, loader):
    kept = []
    for x in loader:
        loss = model(x).mean()
        loss.backward()
        opt.step()
        kept.append(loss.clone())  # want CD107
    return torch.stack(kept)


def bound_append(model, loader, opt, crit):
    losses = []
    record = losses.append
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        record(loss)  # want CD107
    return losses


def tuple_sums(model, loader, opt, crit):
    total, seen = 0.0, 0
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        total, seen = total + loss, seen + len(y)  # want CD107
    return total / seen


def dict_get_total(model, loader, opt, crit, phase):
    stats, per_phase = {}, {"train": 0.0}
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        stats["loss"] = stats.get("loss", 0.0) + loss  # want CD107
        per_phase[phase] += loss  # want CD107
    return stats, per_phase


async def backprop_step(model, opt, crit, x, y):
    loss = crit(model(x), y)
    loss.backward()
    opt.step()
    return loss


async def awaited_step_total(model, opt, crit, batches):
    total = 0.0
    async for x, y in batches:
        total += await backprop_step(model, opt, crit, x, y)  # want CD107
    return total


def fit_partial_append(model, batches, opt):
    history = []
    log = functools.partial(list.append, history)
    for x, y in batches:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss.backward()
        opt.step()
        log(loss)  # want CD107
    return history


def fit_records(model, loader, opt):
    records = []
    for batch in loader:
        out = model(batch)
        out["loss"].backward()
        opt.step()
        records.append(out)  # want CD107
    return records


def fit_parts(model, loader, opt, totals):
    for batch in loader:
        losses = model.losses(batch)
        opt.zero_grad()
        losses["total"].backward()
        opt.step()
        for name in losses:
            totals[name] += losses[name]  # want CD107
    return totals


def fit_logged(model, loader, opt):
    seen = []
    keep = lambda t: seen.append(t)
    for x in loader:
        opt.zero_grad()
        loss = model(x).mean()
        loss.backward()
        opt.step()
        keep(loss)  # want CD107
    return seen


# fabric.backward(loss) backpropagates the loss: the stack after the loop
# is a log, not a loss still to come.
def fit_fabric(fabric, model, loader, opt, epochs):
    for _ in range(epochs):
        kept = []
        for x, y in loader:
            opt.zero_grad()
            step = torch.nn.functional.cross_entropy(model(x), y)
            fabric.backward(step)
            opt.step()
            kept.append(step)  # want CD107
        fabric.print(torch.stack(kept).mean())
