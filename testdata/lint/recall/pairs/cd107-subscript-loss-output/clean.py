def fit(model, optimizer, loader):
    losses = []
    for batch in loader:
        outputs = model(**batch)
        outputs["loss"].backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(outputs["loss"].item())
    return losses
