import functools

import torch
import torch.nn.functional as F

model = torch.nn.Linear(8, 8).cuda()
history = []
for step in range(100):
    x = torch.randn(4, 8, device="cuda")
    loss = model(x).pow(2).mean()
    history.append(loss.item())


def train(model, loader, opt):
    total = 0.0
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        total += loss.detach()
    return total


@torch.no_grad()
def evaluate(model, loader):
    losses = []
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        losses.append(loss)
    return losses


def evaluate2(model, loader):
    total = 0
    with torch.no_grad():
        for x, y in loader:
            val_loss = torch.nn.functional.mse_loss(model(x), y)
            total += val_loss
    return total


def per_iteration(model, loader):
    for x, y in loader:
        parts = []
        loss = model(x).mean()
        parts.append(loss)
        sum(parts).backward()


def accumulate_then_backward(model, micro_batches, opt):
    total = 0
    for mb in micro_batches:
        loss = model(mb).mean()
        total += loss
    total.backward()
    opt.step()


def closure(model, x):
    losses = []
    for i in range(2):
        loss = model(x).mean()
        losses.append(loss)
    return torch.stack(losses).mean()


def regulariser_over_layers(model, loader, opt, crit, lam):
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        reg_loss = 0
        for layer in model.layers:
            layer_loss = layer.weight.pow(2).sum()
            reg_loss += layer_loss
        (loss + lam * reg_loss).backward()
        opt.step()


def chunks_of_one_batch(model, batch, opt, n_chunks):
    opt.zero_grad()
    chunk_losses = []
    for chunk in batch.chunk(n_chunks):
        loss = model(chunk).mean()
        chunk_losses.append(loss)
    torch.stack(chunk_losses).sum().backward()
    opt.step()


def regulariser_into_dict(model, loader, opt, crit):
    for x, y in loader:
        terms = {"l2": 0}
        for p in model.parameters():
            reg_loss = p.pow(2).sum()
            terms["l2"] += reg_loss
        loss = crit(model(x), y) + terms["l2"]
        loss.backward()
        opt.step()


# total = total + loss.item(): a number, not a graph.
def fit(model, loader, crit, opt):
    running = 0.0
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        running = running + loss.item()
    return running / len(loader)


# Flow: the loss is made a number on every path before it is kept.
def fit_logged(model, loader, crit, log_every):
    seen = []
    for i, (x, y) in enumerate(loader):
        loss = crit(model(x), y)
        loss.backward()
        if i % log_every == 0:
            loss = loss.detach()
        else:
            loss = loss.item()
        seen.append(loss)
    return seen


# Flow: the running total is backpropagated after the loop on every path.
def accumulate(model, micro_batches, opt, scale):
    total = 0
    for mb in micro_batches:
        loss = model(mb).mean()
        total = total + loss
    if scale:
        total = total * scale
    total.backward()
    opt.step()


# A loss summed over chunks of one batch and returned: the caller
# backpropagates it once.
def chunked_loss(logits, targets, chunk):
    total = logits.new_zeros(())
    for i in range(0, logits.shape[0], chunk):
        part_loss = torch.nn.functional.cross_entropy(logits[i:i + chunk], targets[i:i + chunk], reduction="sum")
        total = total + part_loss
    return total / logits.shape[0]


# Gradient accumulation: the running total is reset after every optimiser
# step, so at most one window of micro-batches is chained.
def accumulate_and_log(model, loader, opt, accum, log):
    window_loss = 0
    for i, batch in enumerate(loader):
        micro_loss = model(batch).mean() / accum
        window_loss += micro_loss
        micro_loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
            log(window_loss.detach().item())
            window_loss = 0


# A loss summed over the chunks of one tensor, then scaled and returned.
def split_loss(hidden, labels, pieces):
    h_parts = hidden.tensor_split(pieces)
    y_parts = labels.tensor_split(pieces)
    total_loss = hidden.new_zeros(())
    for h, y in zip(h_parts, y_parts):
        chunk_loss = torch.nn.functional.cross_entropy(h, y, reduction="sum")
        total_loss += chunk_loss
    return total_loss / labels.numel()


# Named loss terms of one step, summed over a dict.
def weighted_sum(terms, weights):
    combined_loss = 0
    for key, term in terms.items():
        term_loss = term.mean()
        combined_loss += weights[key] * term_loss
    return combined_loss


# A loop over a fixed list of settings, not over data.
def compare_settings(run):
    results = []
    for setting in ["fp32", "bf16"]:
        final_loss = run(setting)
        results.append(final_loss)
    return results


class PerSampleLoss(torch.nn.Module):
    def forward(self, inputs, targets):
        sample_losses = []
        for x, y in zip(inputs, targets):
            sample_loss = torch.nn.functional.mse_loss(x, y)
            sample_losses.append(sample_loss)
        return tuple(sample_losses)


# The step method calls backward itself and returns the loss detached.
class StepTrainer:
    def training_step(self, batch):
        loss = self.model(batch).loss
        loss.backward()
        return loss.detach()

    def fit(self, loader):
        tr_loss = 0.0
        for batch in loader:
            step_loss = self.training_step(batch)
            tr_loss += step_loss
            self.opt.step()
        return tr_loss


from lightning.pytorch import LightningModule  # noqa: E402


class LitClassifier(LightningModule):
    def training_step(self, batch, batch_idx):
        loss = self.loss_fn(self.net(batch[0]), batch[1])
        self.step_losses.append(loss.detach())
        return loss


# A plain class's training_step is not run by a framework loop.
class Plain:
    def training_step(self, batch):
        loss = self.loss_fn(batch)
        self.last = []
        self.last.append(loss)
        return loss


from transformers import Trainer  # noqa: E402


# The Trainer subclass keeps numbers, and a local list starts afresh at
# every step.
class LoggingTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        loss = outputs["loss"]
        self.recent_losses.append(loss.detach().float())
        parts = []
        parts.append(loss)
        return (loss, outputs) if return_outputs else loss


# The per-key sum of numbers, and a per-key slot set afresh each step.
class AuxTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        self.aux_totals["aux"] += outputs.aux_loss.item()
        self.last["aux"] = outputs.aux_loss
        return outputs.loss


# compute_loss of a class no framework runs is a plain method.
class Scorer:
    def compute_loss(self, model, inputs):
        loss = model(**inputs).loss
        self.history.append(loss)
        return loss


def run_plans(model, opt, data, steps):
    # The plans are handed to the call whose output is backpropagated; the
    # list keeps the plan objects, not a graph.
    plans = []
    for _ in range(steps):
        opt.zero_grad()
        plan = model.build_plan(**data)
        plans.append(plan)
        out = model.run(plan)
        out.backward(torch.ones_like(out))
        opt.step()
    return plans


def log_record(log, value):
    log.append(value)


def fit_records(model, loader, opt, crit):
    history, log = [], []
    for step, batch in enumerate(loader):
        out = model(**batch)
        out.loss.backward()
        opt.step()
        history.append({"step": step, "loss": out.loss.item()})
        log_record(log, out.loss.item())
    return history, log


class Evaluator:
    def __init__(self, model):
        self.model = model
        self.criterion = torch.nn.CrossEntropyLoss()

    @torch.no_grad()
    def evaluate(self, val_loader):
        total = 0.0
        for x, y in val_loader:
            total += self.criterion(self.model(x), y)
        return total / len(val_loader)


class MultiLevelLoss(torch.nn.Module):
    def forward(self, preds, targets):
        return sum(F.l1_loss(p, t) for p, t in zip(preds, targets))


def level_losses(preds, targets, num_levels):
    loss = 0.0
    for lvl in range(num_levels):
        loss += F.l1_loss(preds[lvl], targets[lvl])
    return {"loss_levels": loss}


def build_criteria(cfgs):
    criteria = []
    for cfg in cfgs:
        criteria.append(build_loss(cfg))
    return criteria


def train_clone_detached(model, opt, loader):
    kept = []
    for x in loader:
        loss = model(x).mean()
        loss.backward()
        opt.step()
        kept.append(loss.detach().clone())
    return torch.stack(kept)


def one_step_detached(model, opt, x):
    loss = model(x).mean()
    loss.backward()
    opt.step()
    return loss.detach(), x.shape[0]


def train_tuple_detached(model, opt, loader):
    total = 0
    for x in loader:
        loss, n = one_step_detached(model, opt, x)
        total += loss
    return total


def train_last_loss_slot(model, opt, crit, loader):
    # One slot overwritten every step keeps one step's graph, not all.
    stats = {}
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        stats["last"] = loss
    return stats


def train_indexed_items(model, opt, crit, loader, steps):
    losses = [0.0] * steps
    for i, (x, y) in enumerate(loader):
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        losses[i] = loss.item()
    return losses


def bound_append_items(model, loader, opt, crit):
    losses = []
    record = losses.append
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        record(loss.item())
    return losses


def tuple_sums_of_numbers(model, loader, opt, crit, phase):
    total, seen = 0.0, 0
    stats, per_phase = {}, {"train": 0.0}
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        total, seen = total + loss.item(), seen + len(y)
        stats["loss"] = stats.get("loss", 0.0) + loss.item()
        per_phase[phase] += loss.item()
    return total / seen, stats, per_phase


def fit_partial_append(model, batches, opt):
    history = []
    log = functools.partial(list.append, history)
    for x, y in batches:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss.backward()
        opt.step()
        log(loss.detach())
    return history


def fit_records(model, loader, opt):
    records = []
    for batch in loader:
        out = model(batch)
        out["loss"].backward()
        opt.step()
        out["loss"] = out["loss"].item()
        records.append(out)
    return records


def fit_parts(model, loader, opt, totals):
    for batch in loader:
        losses = model.losses(batch)
        opt.zero_grad()
        losses["total"].backward()
        opt.step()
        for name in losses:
            totals[name] += losses[name].item()
    return totals


def fit_logged(model, loader, opt):
    seen = []
    keep = lambda t: seen.append(t)
    for x in loader:
        opt.zero_grad()
        loss = model(x).mean()
        loss.backward()
        opt.step()
        keep(loss.item())
    return seen


# The terms are summed and backpropagated once after the loop; y.backward(g)
# takes g as the gradient, it does not backpropagate g.
def fit_chunks(model, x, g, opt):
    kept = []
    for part in x.chunk(4):
        y = model(part)
        y.backward(g)
        kept.append(g)
    opt.step()
    return torch.stack(kept).sum()
