import torch


def fit(model, batches, opt):
    history = []
    for inputs, targets in batches:
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss)  # want CD107
    return history
