import torch


def train(model, batches, opt):
    staging = torch.empty(64, 128, pin_memory=True)
    for batch in batches:
        staging.copy_(batch)  # want CD102
        x = staging.to("cuda", non_blocking=True)
        loss = model(x).mean()
        loss.backward()
        opt.step()
