import torch


def show(t):
    print("loss", t.cpu())


def capture_step(model, x, y, g):
    with torch.cuda.graph(g):
        loss = torch.nn.functional.mse_loss(model(x), y)
        show(loss)  # want CD110
    return loss
