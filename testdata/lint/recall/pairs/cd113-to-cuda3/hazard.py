import torch


def train(model, loader):
    for batch in loader:
        batch = batch.to("cuda:3")  # want CD113
        model(batch).sum().backward()
