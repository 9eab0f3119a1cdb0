import torch


def fit(model, loader, opt, amp_scaler=None):
    curve = {"train": []}
    for step, (x, y) in enumerate(loader):
        out = model(x)
        loss = torch.nn.functional.mse_loss(out, y)
        if amp_scaler is not None:
            amp_scaler.scale(loss).backward()
            amp_scaler.step(opt)
            amp_scaler.update()
            loss = loss.detach()
        else:
            loss.backward()
            opt.step()
        opt.zero_grad()
        curve["train"].append(loss)  # want CD107
    return curve
