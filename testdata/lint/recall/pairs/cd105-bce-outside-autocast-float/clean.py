import torch


crit = torch.nn.BCELoss()


def step(model, x, y):
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        logits = model(x)
    p = logits.float().sigmoid()
    loss = crit(p, y.float())
    return loss
