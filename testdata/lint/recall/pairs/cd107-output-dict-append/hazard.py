def fit_epoch(model, loader, optimizer):
    outputs = []
    for batch in loader:
        optimizer.zero_grad()
        output = model(batch)
        output["loss"].backward()
        optimizer.step()
        outputs.append(output)  # want CD107
    return outputs
