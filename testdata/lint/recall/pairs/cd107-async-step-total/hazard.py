import torch


async def step(model, opt, crit, x, y):
    loss = crit(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


async def train(model, opt, crit, batches):
    total = 0.0
    async for x, y in batches:
        total += await step(model, opt, crit, x, y)  # want CD107
    return total
