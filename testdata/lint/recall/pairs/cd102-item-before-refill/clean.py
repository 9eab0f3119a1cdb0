import torch


def train(model, batches, opt):
    staging = torch.empty(64, 128, pin_memory=True)
    for batch in batches:
        staging.copy_(batch)
        x = staging.to("cuda", non_blocking=True)
        loss = model(x).mean()
        loss.backward()
        opt.step()
        print(loss.item())
