import torch


def train_on_chunks(model, chunks, crit, opt):
    opt.zero_grad()
    total = 0
    for x, y in chunks:
        loss = crit(model(x), y) / len(chunks)
        total += loss
    total.backward()
    opt.step()
    return total.item()
