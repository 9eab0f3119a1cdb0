import torch


def epoch_val(model, loader, criterion, device):
    model.eval()
    loss_mean = 0
    batches = 0
    with torch.no_grad():
        for inputs, targets in loader:
            outputs = model(inputs.to(device))
            loss_mean += criterion(outputs, targets.to(device)).item()
            batches += 1
    return loss_mean / batches


def fit(model, train_loader, val_loader, criterion, optimizer, epochs, device):
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=5)
    for _ in range(epochs):
        model.train()
        for inputs, targets in train_loader:
            loss = criterion(model(inputs.to(device)), targets.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        val_loss = epoch_val(model, val_loader, criterion, device)
        scheduler.step(val_loss)
