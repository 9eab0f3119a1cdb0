import torch


crit = torch.nn.BCELoss()


def step(model, x, y):
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        p = model(x).sigmoid()
        loss = crit(p, y)  # want CD105
    return loss
