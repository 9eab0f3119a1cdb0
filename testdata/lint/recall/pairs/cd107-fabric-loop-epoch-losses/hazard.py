import lightning as L
import torch


def main(model, dataset, epochs=5):
    fabric = L.Fabric(accelerator="cuda", devices=1)
    fabric.launch()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model, optimizer = fabric.setup(model, optimizer)
    loader = fabric.setup_dataloaders(torch.utils.data.DataLoader(dataset, batch_size=32))
    for epoch in range(epochs):
        epoch_losses = []
        for inputs, target in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(inputs), target)
            fabric.backward(loss)
            optimizer.step()
            epoch_losses.append(loss)  # want CD107
        fabric.print(f"epoch {epoch}: {torch.stack(epoch_losses).mean():.4f}")
