def train_epoch(model, loader, optimizer, epoch_loss):
    for batch in loader:
        scores = model(batch)
        loss = model.compute_loss(scores, batch)
        optimizer.zero_grad()
        loss["total"].backward()
        optimizer.step()
        for key in loss:
            epoch_loss[key] += loss[key].item()
    return epoch_loss
