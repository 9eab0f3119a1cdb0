def fit_epoch(model, loader, optimizer):
    outputs = []
    for batch in loader:
        optimizer.zero_grad()
        output = model(batch)
        output["loss"].backward()
        optimizer.step()
        output["loss"] = output["loss"].detach()
        outputs.append(output)
    return outputs
