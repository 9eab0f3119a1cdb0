import torch


def train_on_chunks(model, chunks, crit, opt):
    opt.zero_grad()
    total = 0
    for x, y in chunks:
        loss = crit(model(x), y) / len(chunks)
        loss.backward()
        total += loss  # want CD107
    opt.step()
    return total
