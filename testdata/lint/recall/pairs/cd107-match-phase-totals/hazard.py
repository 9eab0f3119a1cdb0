import torch


def run(model, loader, opt, crit, phase):
    totals = {"train": 0.0, "val": 0.0}
    for x, y in loader:
        loss = crit(model(x), y)
        match phase:
            case "train":
                opt.zero_grad()
                loss.backward()
                opt.step()
            case _:
                pass
        totals[phase] += loss  # want CD107
    return totals
