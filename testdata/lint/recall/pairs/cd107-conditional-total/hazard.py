def train_epoch(model, batches, optimizer):
    total_loss = None
    for interaction in batches:
        optimizer.zero_grad()
        losses = model.calculate_loss(interaction)
        total_loss = losses if total_loss is None else total_loss + losses  # want CD107
        losses.backward()
        optimizer.step()
    return total_loss
