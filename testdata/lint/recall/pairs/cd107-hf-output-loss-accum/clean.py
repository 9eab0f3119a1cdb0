def train(model, loader, optimizer, scheduler, accum_steps):
    train_loss = 0
    for step, batch in enumerate(loader):
        output = model(**batch)
        loss = output.loss / accum_steps
        loss.backward()
        if (step + 1) % accum_steps == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        train_loss += output.loss.detach()
    return train_loss / len(loader)
