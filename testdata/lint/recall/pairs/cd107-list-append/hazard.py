import torch


def epoch(model, batches, opt):
    losses = []
    for batch in batches:
        loss = model(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)  # want CD107
    return sum(l.item() for l in losses) / len(losses)
