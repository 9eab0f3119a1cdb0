import torch


def train(model, batches, opt):
    history = []
    for group in batches:
        opt.zero_grad()
        terms = [model(x).pow(2).mean() for x in group]
        total = sum(terms)
        total.backward()
        opt.step()
        history.extend(terms)  # want CD107
    return history
