import torch


def optimise(params, objective, steps):
    opt = torch.optim.Adam(params)
    log = {"train": []}
    for _ in range(steps):
        opt.zero_grad()
        loss = objective(params)
        loss.backward()
        opt.step()
        log["train"].append(loss.item())
    return log
