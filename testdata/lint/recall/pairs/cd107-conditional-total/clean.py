def train_epoch(model, batches, optimizer):
    total_loss = None
    for interaction in batches:
        optimizer.zero_grad()
        losses = model.calculate_loss(interaction)
        total_loss = losses.item() if total_loss is None else total_loss + losses.item()
        losses.backward()
        optimizer.step()
    return total_loss
