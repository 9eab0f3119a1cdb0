def train_step(model, optimizer, batch, device="cuda"):
    inputs, targets = (t.to(device, non_blocking=True) for t in batch)
    loss = model(inputs, targets)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss


def train_step_logged(model, optimizer, batch, device="cuda"):
    loss = train_step(model, optimizer, batch, device)
    return loss.item()
